// The workflow↔activity contract: every activity of an agent run, as workflows see it through proxyActivities. The
// worker's createActivities (activities/index.ts) is typed to it, so an activity that drifts from its contract fails
// the typecheck, and workflow code needs nothing from activities/, not even types. Webhook deliveries and bulk jobs
// have theirs beside their other contracts (common/webhooks.ts, common/bulk-redrive.ts).
import type { ResolveAgentInput, ResolveAgentOutput } from '../by-name';
import type { StartCallbackInput, StartCallbackOutput } from '../callbacks';
import type {
  FollowRemoteTaskInput,
  RemoteToolResult,
  SendRemoteMessageInput,
  SendRemoteMessageOutput,
} from '../remote-agents';
import type { ChatMessage } from '../steps';
import type { CallModelInput, CallModelOutput } from './model-call';
import type {
  LoadConversationInput,
  LogEventsInput,
  PersistStepsInput,
  RecordRunInput,
  RollBackRunInput,
  StoreCompactedInput,
} from './persistence';
import type { ResolveToolsInput, ResolveToolsOutput, RunToolInput, RunToolOutput } from './tool-calls';

/** The activities of agent runs, workflow agents and session runners. */
export interface AgioActivities {
  /** One streaming model call: the assistant step, its usage, and how a final answer matched the output schema. */
  callModel(input: CallModelInput): Promise<CallModelOutput>;
  /** One tool call in the run's workspace; anything the model got wrong is an error result, not a failure. */
  runTool(input: RunToolInput): Promise<RunToolOutput>;
  /**
   * An agent's tool names to the specs the workflow schedules them with, and its sub-agents that failed a healthcheck.
   */
  resolveTools(input: ResolveToolsInput): Promise<ResolveToolsOutput>;
  /** A run started by name: its agent's spec from the worker's agents. */
  resolveAgent(input: ResolveAgentInput): Promise<ResolveAgentOutput>;
  /** A run starting or ending, in the stores (with the root's Wire events since its last write). */
  recordRun(input: RecordRunInput): Promise<void>;
  /** The steps committed since the last call (idempotent by step id). */
  persistSteps(input: PersistStepsInput): Promise<void>;
  /** Wire events added to a run's event log (idempotent by offset). */
  logEvents(input: LogEventsInput): Promise<void>;
  /** A session's earlier conversation, fitted into the run's input. */
  loadConversation(input: LoadConversationInput): Promise<ChatMessage[]>;
  /** Contents compacted out of a conversation, stored with the tool results; their refs, in order. */
  storeCompacted(input: StoreCompactedInput): Promise<string[]>;
  /** Marks a run a `rollback` start cancelled as rolled back in its session. */
  rollBackRun(input: RollBackRunInput): Promise<void>;
  /** Starts a callback tool's outside work once (or answers at once). */
  startCallbackTool(input: StartCallbackInput): Promise<StartCallbackOutput>;
  /** Sends a remote A2A agent its message: a task to follow, or the answer. */
  sendRemoteMessage(input: SendRemoteMessageInput): Promise<SendRemoteMessageOutput>;
  /** Follows a remote A2A task to its end, across worker restarts. */
  followRemoteTask(input: FollowRemoteTaskInput): Promise<RemoteToolResult>;
}
