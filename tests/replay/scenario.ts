// What a recorded scenario is: a run started on the scripted model, what an operator does while it runs, how it ends
// and which of its executions are written as histories. record-histories.ts runs them; the scenario files list them.
import type { RunHandle } from '../../client/agio-client';
import {
  defineAgent,
  loopAgent,
  type AgentSpec,
  type AgentSpecInput,
  type AnyAgentSpec,
  type AgioEvent,
  type RunSeed,
} from '../../common';
import { text, toolCall, toolCalls, type ScriptedModelServer } from '../../devkit/scripted-model-server';

/**
 * An execution of a scenario's run: its chain's first or last run, or a child started by that chain (its id under the
 * root's).
 */
export type Execution = 'first run' | 'last run' | { child: string };

/** One history a scenario writes: `<name>.json` in the current release's directory. */
export interface Recording {
  name: string;
  of: Execution;
}

/** One recorded scenario: a workflow run and the model turns it needs. */
export interface Scenario {
  /**
   * Names the root's workflow id, `replay-<name>` (the replay test finds a root's id by this rule), and its history
   * file.
   */
  name: string;
  script: (model: ScriptedModelServer) => void;
  args: [{ agent: AnyAgentSpec; input: string; context?: unknown; seed?: RunSeed }];
  /** What an operator does while the run runs (pause, approve, cancel); the run's end is awaited beside it. */
  drive?: (run: RunHandle, model: ScriptedModelServer) => Promise<void>;
  /** How the run ends; anything else fails the recording (default completed). */
  ends?: 'completed' | 'failed' | 'cancelled';
  /** The histories to write (default: the root's last run under `name`). */
  recordings?: Recording[];
  /**
   * Started by name (workflow agentByName), the worker holding `args[0].agent`: its first run resolves the name, its
   * last is the agent's own type.
   */
  byName?: boolean;
}

/** The workflow id of a scenario's root run. */
export const workflowIdOf = (scenario: Scenario): string => `replay-${scenario.name}`;

/** The histories a scenario writes. */
export const recordingsOf = (scenario: Scenario): Recording[] =>
  scenario.recordings ?? [{ name: scenario.name, of: 'last run' }];

/** An LLM sub-agent whose requests the scripted model recognises by its instructions. */
export const member = (name: string, extra: Partial<AgentSpecInput> = {}): AgentSpec =>
  defineAgent({ name, instructions: `You are ${name}.`, tools: ['ls'], ...extra });

/**
 * Scripts a lead that asks the member `name` (an agent used as a tool, call id `call_<name>`) to look around and then
 * answers `The <name> looked around.`, and `name`, which lists the workspace once and answers `Nothing much here.`.
 */
export function scriptLeadAndLooker(model: ScriptedModelServer, name: string): void {
  model.scriptFor(
    'You are the lead.',
    toolCalls([toolCall(name, { task: 'look around' }, { id: `call_${name}` })]),
    text(`The ${name} looked around.`),
  );
  model.scriptFor(`You are ${name}.`, toolCalls([toolCall('ls', {})]), text('Nothing much here.'));
}

/**
 * A loop [drafter, critic] of two iterations that continues as new after each (named `refine`), on `input`, with the
 * model turns of both iterations.
 */
export const refineLoopContinuingAsNew = (input: string): Pick<Scenario, 'script' | 'args'> => ({
  script: (model) => {
    model.scriptFor('You are drafter.', text('draft 1'), text('draft 2'));
    model.scriptFor('You are critic.', text('better'), text('good'));
  },
  args: [
    {
      agent: loopAgent({
        name: 'refine',
        maxIterations: 2,
        continueAsNewEvery: 1,
        subAgents: [member('drafter'), member('critic')],
      }),
      input,
    },
  ],
});

/** Resolves once `check` holds, polling; rejects after `timeoutMs` naming what it waited for. */
export async function waitUntil(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !check(); await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
  }
}

/** Resolves once the root's stream holds an event matching `match`. */
export async function waitForEvent(run: RunHandle, match: (e: AgioEvent) => boolean): Promise<AgioEvent> {
  for await (const event of run.stream({ maxPollMs: 100 })) if (match(event)) return event;
  throw new Error(`the stream of ${run.runId} ended without the event awaited`);
}
