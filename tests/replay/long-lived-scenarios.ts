// The scenarios recorded since release 0.2.0: the paths of long-lived runs, where a run waits (paused, for a person,
// for a timer), continues as new, ends other than by completing, or reports to its root from a child workflow.
import { asTool, defineAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import {
  member,
  refineLoopContinuingAsNew,
  scriptLeadAndLooker,
  waitForEvent,
  waitUntil,
  type Scenario,
} from './scenario';

/** An agent whose `ls` calls wait for a person's approval (or `approvalTimeoutMs`). */
const asker = (approvalTimeoutMs?: number) =>
  member('asker', {
    permissions: [{ tool: 'ls', action: 'ask' }],
    ...(approvalTimeoutMs ? { approvalTimeoutMs } : {}),
  });

/** An agent that calls `scout`, another agent, as a tool. */
const lead = defineAgent({
  name: 'lead',
  instructions: 'You are the lead.',
  tools: [asTool(member('scout'), { description: 'Looks around.' })],
});

export const longLivedScenarios: Scenario[] = [
  {
    // Paused while its first model call runs, so it parks at the next safe point (the pause update answers then);
    // resumed by signal, it makes its second model call and completes.
    name: 'agent-run-paused',
    script: (model) =>
      model.scriptFor(
        'You are pausable.',
        toolCalls([toolCall('ls', {})], { hangMs: 1500 }),
        text('Listed, after a pause.'),
      ),
    args: [{ agent: member('pausable'), input: 'list the files' }],
    drive: async (run, model) => {
      await waitUntil('the first model call is under way', () => model.requests.length > 0);
      const parked = await run.pause({ reason: 'replay fixture', by: 'recorder' });
      if (!parked?.parked) throw new Error(`the run did not park: ${JSON.stringify(parked)}`);
      await run.resume({ by: 'recorder' }, { wait: false });
    },
  },
  {
    // A tool call that asks first: TOOL_AUTH_REQUIRED, a wait, the decideToolCall update approving it, the tool.
    name: 'agent-run-approval-wait',
    script: (model) =>
      model.scriptFor(
        'You are asker.',
        toolCalls([toolCall('ls', {}, { id: 'call_ls' })]),
        text('Listed once approved.'),
      ),
    args: [{ agent: asker(), input: 'list the files' }],
    drive: async (run) => {
      await waitForEvent(run, (e) => e.type === 'TOOL_AUTH_REQUIRED');
      await run.approve('call_ls', { by: 'recorder' });
    },
  },
  {
    // Nobody decides: the approval's timer fires, the call is denied with reason "timeout" and the run goes on.
    name: 'agent-run-approval-timeout',
    script: (model) =>
      model.scriptFor('You are asker.', toolCalls([toolCall('ls', {}, { id: 'call_ls' })]), text('Nobody answered.')),
    args: [{ agent: asker(1000), input: 'list the files' }],
  },
  {
    // A run that continues as new after its first model call (its steps stored first), and the run that finishes it.
    name: 'agent-run-continue-as-new',
    script: (model) =>
      model.scriptFor('You are chained.', toolCalls([toolCall('ls', {})]), text('Listed across two runs.')),
    args: [
      { agent: member('chained'), input: 'list the files', context: { limits: { continueAsNewAfterModelCalls: 1 } } },
    ],
    recordings: [
      { name: 'agent-run-continue-as-new', of: 'first run' },
      { name: 'agent-run-continued', of: 'last run' },
    ],
  },
  {
    // Cancelled while its model call streams slowly: the call is cancelled, RUN_CANCELLED published, the run cancelled.
    name: 'agent-run-cancelled',
    script: (model) => model.scriptFor('You are slow.', text('Too late.', { hangMs: 60_000 })),
    args: [{ agent: member('slow'), input: 'take your time' }],
    drive: async (run, model) => {
      await waitUntil('the model call is under way', () => model.requests.length > 0);
      await run.cancel();
    },
    ends: 'cancelled',
  },
  {
    // The model refuses the request (HTTP 400, not retryable): RUN_FAILED and the run fails.
    name: 'agent-run-failed',
    script: (model) =>
      model.scriptFor('You are refused.', {
        error: { status: 400, body: { error: { message: 'unsupported parameter' } } },
      }),
    args: [{ agent: member('refused'), input: 'hello' }],
    ends: 'failed',
  },
  {
    // An agent used as a tool: the lead's history starts the child; the child's own history publishes its events to
    // the root by signal.
    name: 'agent-run-lead',
    script: (model) => scriptLeadAndLooker(model, 'scout'),
    args: [{ agent: lead, input: 'what is there?' }],
    recordings: [
      { name: 'agent-run-lead', of: 'last run' },
      { name: 'agent-run-child', of: { child: 'tool/3-call_scout' } },
    ],
  },
  {
    // The first run of a loop that continues as new after each iteration (the event log written before it continues).
    name: 'loop-agent-continue-as-new',
    ...refineLoopContinuingAsNew('a line'),
    recordings: [{ name: 'loop-agent-continue-as-new', of: 'first run' }],
  },
];
