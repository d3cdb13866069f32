// Worker-side entry point for activities: binds the model, tools and workspace into the activity functions.
import type { Stores } from '../stores';
import { AgentHealth } from './healthcheck';
import { createPersistenceActivities, persistingFirst } from './persistence';
import {
  createCallModel,
  heartbeating,
  noSink,
  readConversation,
  type ModelConfig,
  type StepStreamSinkFactory,
} from './model/call-model';
import { createToolActivities } from './run-tool';
import { numberedAfterEarlierCalls, readingStoredConversation } from './model/stored-conversation';
import { DEFAULT_DELTA_BUDGET, wireStepSink, type DeltaBudget } from './model/wire-step-sink';
import { liveStepSink } from './model/live-step-sink';
import type { LiveLane } from '../live/lane';
import type { ToolRegistry } from './tools/registry';
import type { WorkspaceSync } from './workspace/workspace-sync';
import type { Sandbox } from './sandbox/sandbox';
import { createResolveAgent } from './resolve-agent';
import { AgentRegistry, DEFAULT_PRICES } from '../common';
import { budgetedCallModel } from './model/budget-check';
import { observedCallModel, observedRunTool, type RunObserver } from './observer';
import { createSessionRunActivities } from './session-runs';
import { createCallbackActivities, type CallbackOptions } from './callbacks/start-callback';
import { createRemoteAgentActivities } from './a2a/remote-agent-tool';
import type { AgioActivities } from '../common/contracts/activities';

/** What the activities need from the worker. */
export interface ActivityDeps {
  model: ModelConfig;
  tools: ToolRegistry;
  /** Absolute directory under which every run gets its workspace. */
  workspaceRoot: string;
  /** Where model deltas go; default: the root run's Wire (when the call asks to stream). */
  streamSink?: StepStreamSinkFactory;
  /** Sub-agent healthchecks (shared with the worker's start-up checks). */
  health?: AgentHealth;
  /** Sessions, traces, citations and full tool outputs. */
  stores: Stores;
  /** Where model deltas go when no `streamSink` is given: this live lane, else the root run's Wire. */
  liveLane?: LiveLane;
  /**
   * Without a live lane: how deltas into the root's Wire are paced and when they stop (default DEFAULT_DELTA_BUDGET).
   */
  deltaBudget?: DeltaBudget;
  /** Keeps runs' workspaces in the stores, so any worker runs a run's next tool (absent: the local directory only). */
  workspaceSync?: WorkspaceSync;
  /** Where bash, grep and glob run their programs (absent: they refuse). */
  sandbox?: Sandbox;
  /** The agents runs started by name resolve to (absent: none; every start by name fails with UnknownAgent). */
  agents?: AgentRegistry;
  /** What every model and tool call reports when it ends (the worker's metrics and traces). */
  observers?: RunObserver[];
  /** Callback tools' signed URLs: the secret the bridges share and their base URL (absent: callback tools refuse). */
  callbacks?: CallbackOptions;
}

/**
 * All of Agio's activities, bound to their dependencies: the contract workflows see (common/contracts/activities.ts).
 */
export function createActivities(deps: ActivityDeps): AgioActivities {
  const persistence = createPersistenceActivities(deps.stores);
  const observers = deps.observers ?? [];
  const tools = createToolActivities(
    deps.tools,
    deps.workspaceRoot,
    deps.health ?? new AgentHealth(deps.tools, deps.model),
    deps.stores,
    deps.workspaceSync,
    deps.sandbox,
  );
  return {
    // A conversation kept in the message store is read first, so the steps handed to the call can name its messages.
    // The call heartbeats from its start: what runs before the model is called counts against its heartbeat timeout.
    callModel: heartbeating(
      budgetedCallModel(
        readingStoredConversation(
          persistingFirst(
            observedCallModel(
              createCallModel(
                deps.model,
                deps.tools,
                numberedAfterEarlierCalls(deps.streamSink ?? defaultStreamSink(deps.liveLane, deps.deltaBudget)),
              ),
              deps.model,
              deps.model.prices ?? DEFAULT_PRICES,
              observers,
            ),
            persistence.persistSteps,
            readConversation,
          ),
          deps.stores.messages,
        ),
        { spend: deps.stores.spend, tenantDailyBudgetUsd: deps.model.tenantDailyBudgetUsd },
      ),
    ),
    ...tools,
    runTool: observedRunTool(tools.runTool, observers),
    ...persistence,
    resolveAgent: createResolveAgent(deps.agents ?? new AgentRegistry()),
    ...createSessionRunActivities(deps.stores),
    ...createCallbackActivities(deps.tools, deps.callbacks),
    ...createRemoteAgentActivities(deps.tools),
  };
}

/** Deltas of calls that stream: into the live lane when the worker has one, else batched into the root's Wire. */
const defaultStreamSink =
  (lane?: LiveLane, budget = DEFAULT_DELTA_BUDGET): StepStreamSinkFactory =>
  (input) => {
    if (!input.eventBase || !input.streamDeltas) return noSink;
    return lane
      ? liveStepSink(lane, input.eventBase, input.stepId)
      : wireStepSink(input.eventBase, input.stepId, undefined, undefined, budget);
  };

export type { AgioActivities };
export type { ModelConfig, StepStreamSink } from './model/call-model';
