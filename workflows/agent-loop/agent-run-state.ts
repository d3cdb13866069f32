// One agent run while it executes: what it was asked, its frame (see run-lifecycle.ts), conversation, approvals,
// records and counters. Set up from its input in the order its history records them (patch markers included), and
// how it starts (RUN_STARTED and its first steps) and closes (its record, then its terminal event).
import { CancellationScope, patched, workflowInfo } from '@temporalio/workflow';
import {
  SEEDED_RUN_PATCH,
  ZERO_USAGE,
  jsonBytes,
  originFields,
  type AgentRunInput,
  type ChatMessage,
  type Escalation,
  type RunEnding,
  type RunOutput,
  type RunSeed,
  type Step,
  type TerminationReason,
  type Usage,
} from '../../common';
import { ACTIVE_DEADLINE_PATCH, WaitTracker } from '../nesting/active-deadline';
import { Approvals } from '../lifecycle/approvals';
import { Callbacks } from './callback-tools';
import { COST_BUDGETS_PATCH } from './budget';
import { Conversation } from '../conversation/conversation';
import { CONVERSATION_STORE_PATCH, ConversationWrites } from '../conversation/conversation-writes';
import { EVENT_LOG_TAIL_PATCH } from '../events/event-log';
import { LEAN_STEPS_PATCH, callModelActivity, withModelRetryLimits } from './model-step';
import { buildRunContext, initialMessages, renderInstructions } from '../lifecycle/run-context';
import { answerState, keepsOwnLog, openRun, type RunFrame, type TerminalEvent } from '../lifecycle/run-lifecycle';
import { RunRecorder } from '../events/run-record';
import { StructuredOutput } from './structured-output';
import { UPGRADE_PATCH } from '../lifecycle/upgrade';
import { USER_MESSAGES_PATCH, UserMessages } from '../lifecycle/user-messages';
import type { AgioActivities } from '../../common/contracts/activities';

/** Largest output returned with its steps (UTF-8 bytes of JSON); Temporal refuses a result over 2 MiB. */
export const MAX_RUN_OUTPUT_BYTES = 1_500_000;
/**
 * The patch under which a nested run (depth > 0: an agent tool, a workflow agent's sub-agent) returns its output
 * without its steps (`stepsOmitted` says how many); a root still returns them. Parents accept both shapes: they never
 * read them.
 */
export const LEAN_NESTED_OUTPUT_PATCH = 'agio-lean-nested-output';
/** Characters of a run's input its RUN_STARTED event carries (the whole input is in the run's first user step). */
const INPUT_PREVIEW_CHARS = 2000;

/** An agent run's input once parsed (defaults filled in). */
export type ParsedAgentRunInput = ReturnType<typeof AgentRunInput.parse>;

/** What an agent run has spent and done so far, carried across continue-as-new. */
export interface RunCounters {
  /** Its own usage and that of every run it started. */
  usage: Usage;
  ownUsage: Usage;
  modelCalls: number;
  toolCalls: number;
  toolErrors: number;
}

/** One agent run while it executes. */
export interface AgentRun extends RunFrame {
  /** What the run was started with (its workflow argument): agent, prompt (`input`), context, state. */
  request: ParsedAgentRunInput;
  agent: ParsedAgentRunInput['agent'];
  approvals: Approvals;
  /** Callback tool calls waiting for their outside results. */
  callbacks: Callbacks;
  /** Agents with an output schema only (so runs of earlier releases, which never have one, replay untouched). */
  structured?: StructuredOutput;
  recorder: RunRecorder;
  conversation: Conversation;
  counters: RunCounters;
  startedAt: number;
  /** Model calls made before this workflow run began (the continue-as-new threshold counts from here). */
  modelCallsAtStart: number;
  /** The session's earlier conversation this run continues. */
  history: ChatMessage[];
  /** Tool calls of the current turn still running. */
  runningTools: string[];
  /** Which of its children wait; an agent-tool child also tells its parent when it waits itself. */
  waits: WaitTracker;
  callModel: AgioActivities['callModel'];
  /**
   * A root adds its terminal event to its event log (runs started before the log existed replay without that write).
   */
  logsTail: boolean;
  /** Tools resolved locally, and a turn's steps riding on the next model call (see LEAN_STEPS_PATCH). */
  leanSteps: boolean;
  /**
   * Moves to a newer worker version at continue-as-new. A documented patched() example: runs started before this
   * release replay without it (the branch adds commands: a continue-as-new when a newer version becomes current, and a
   * safe point before each model call), while runs started with it take the new path from their first task on.
   */
  upgrades: boolean;
  /**
   * Model calls carry the tenant and the tree's cost budget, and a spent budget pauses the run (COST_BUDGETS_PATCH).
   */
  budgets: boolean;
  /** Messages users add while it runs (USER_MESSAGES_PATCH; runs started before refuse them). */
  messages: UserMessages;
}

/** Sets an agent run up from its parsed input (or what it carried across continue-as-new). */
export function openAgentRun(request: ParsedAgentRunInput): AgentRun {
  const { agent, resume } = request;
  const context = withModelRetryLimits(buildRunContext(agent, request.context, workflowInfo().workflowId));
  const frame = openRun(context, agent.name, resume);
  const callModel = callModelActivity(context);
  const approvals = new Approvals(
    frame.events,
    context,
    agent.permissions,
    agent.approvalTimeoutMs,
    frame.control,
    resume?.approvals,
  );
  const callbacks = new Callbacks(frame.events, context, frame.control, resume?.callbacks);
  const structured = StructuredOutput.of(agent, resume?.outputRepairs);
  const counters: RunCounters = {
    usage: resume?.usage ?? ZERO_USAGE,
    ownUsage: resume?.ownUsage ?? ZERO_USAGE,
    modelCalls: resume?.modelCalls ?? 0,
    toolCalls: resume?.toolCalls ?? 0,
    toolErrors: resume?.toolErrors ?? 0,
  };
  const startedAt = resume?.startedAt ?? Date.now();
  const recorder = new RunRecorder(
    context,
    agent.name,
    startedAt,
    resume?.steps.length,
    frame.wire,
    resume?.loggedOffset,
  );
  // The run is its frame, extended: the status the lifecycle sets on the frame is the one its state query reads.
  const run: AgentRun = Object.assign(frame, {
    request,
    agent,
    approvals,
    callbacks,
    structured,
    recorder,
    // Asked first, when the run opens: a large conversation is kept in the message store (runs started before: Query).
    conversation: new Conversation(patched(CONVERSATION_STORE_PATCH) ? new ConversationWrites() : undefined),
    counters,
    startedAt,
    modelCallsAtStart: counters.modelCalls,
    history: resume?.history ?? [],
    runningTools: [],
    callModel,
    // The order of these patched() calls is the order of their markers in the history.
    logsTail: keepsOwnLog(context) && patched(EVENT_LOG_TAIL_PATCH),
    leanSteps: patched(LEAN_STEPS_PATCH),
    upgrades: patched(UPGRADE_PATCH),
    budgets: patched(COST_BUDGETS_PATCH),
    waits: new WaitTracker(
      // A call waiting for outside work waits like one waiting for a person (none in runs before callback tools).
      { control: frame.control, pendingApprovals: () => approvals.list().length + callbacks.list().length },
      context.parentRunId && context.nestingType === 'agent_tool' && patched(ACTIVE_DEADLINE_PATCH)
        ? context.parentRunId
        : undefined,
    ),
    // Asked last of the run's opening patches (a newer one goes after it).
    messages: new UserMessages(frame.events, patched(USER_MESSAGES_PATCH), resume?.messages),
  });
  answerState(frame, agent.name, 'llm', () => ({
    runningTools: run.runningTools,
    currentStep: run.conversation.steps.length,
    modelCalls: counters.modelCalls,
    toolCalls: counters.toolCalls,
    pendingApprovals: approvals.list(),
    ...(callbacks.list().length ? { pendingCallbacks: callbacks.list() } : {}),
    ...(run.messages.queuedIds().length ? { queuedMessages: run.messages.queuedIds() } : {}),
    usage: counters.usage,
    ...(context.limits.maxCostUsd !== undefined ? { maxCostUsd: context.limits.maxCostUsd } : {}),
  }));
  resume?.steps.forEach((step) => run.conversation.add(step));
  return run;
}

/** Adds a step to the conversation and publishes it (STEP_COMPLETED). */
export async function commit(run: AgentRun, step: Step): Promise<void> {
  run.conversation.add(step);
  await run.events.emit({
    type: 'STEP_COMPLETED',
    stepId: step.id,
    snapshot: step,
    ...(step.usage ? { usage: step.usage } : {}),
  });
}

/** The next step's id, run and index. */
export function nextStep(run: AgentRun): Pick<Step, 'id' | 'runId' | 'index'> {
  const index = run.conversation.steps.length;
  return { id: `${run.context.runId}:${index}`, runId: run.context.runId, index };
}

/**
 * Announces a new run: RUN_STARTED, its record, the session's earlier conversation, and its first steps (instructions
 * and input). Not cancellable: a run cancelled at once still records that it started and what it was asked.
 */
export function startAgentRun(run: AgentRun): Promise<void> {
  const { request, context } = run;
  return CancellationScope.nonCancellable(async () => {
    // The input itself is in the first user step; a long one is only previewed here, so no event is copied twice that
    // big.
    const text = typeof request.input === 'string' ? request.input : undefined;
    const preview =
      text === undefined
        ? request.input.length + ' messages'
        : text.length > INPUT_PREVIEW_CHARS
          ? `${text.slice(0, INPUT_PREVIEW_CHARS)}…`
          : text;
    const inputChars = text !== undefined && preview !== text ? { inputChars: text.length } : {};
    // Only a retry or fork has a seed (and asks the patch): every earlier run replays as it ran.
    const seed = request.seed && patched(SEEDED_RUN_PATCH) ? request.seed : undefined;
    await run.events.emit({
      type: 'RUN_STARTED',
      data: {
        input: preview,
        ...inputChars,
        ...(context.sessionId ? { sessionId: context.sessionId } : {}),
        ...originFields(seed?.origin),
      },
    });
    await run.recorder.start();
    if (seed) return commitSeed(run, seed);
    run.history = await run.recorder.history();
    for (const m of initialMessages(renderInstructions(run.agent.instructions, request.state), request.input))
      await commit(run, { ...nextStep(run), ...m });
  });
}

/**
 * A retry's or fork's first steps: the source run's, committed as this run's own (its ids and indexes, the source's
 * step id kept in `metadata.copiedFrom`), so its stream, its stored steps and a later retry of it read the whole
 * conversation. A system step is written again from this run's instructions (a fork may have changed them).
 */
async function commitSeed(run: AgentRun, seed: RunSeed): Promise<void> {
  for (const [i, step] of seed.steps.entries()) {
    const content =
      step.role === 'system' && i === 0 ? renderInstructions(run.agent.instructions, run.request.state) : step.content;
    await commit(run, { ...step, ...nextStep(run), content, metadata: { ...step.metadata, copiedFrom: step.id } });
  }
}

/**
 * Closes the run: its record is closed and stored before its terminal event (a reader that sees the run end finds it
 * stored), which a root then adds to its event log (a failed write there fails nothing, see event-log.ts).
 */
export async function closeAgentRun(run: AgentRun, ending: RunEnding, terminal: TerminalEvent): Promise<void> {
  run.messages.close();
  const closing = run.recorder.end(run.conversation.steps, ending, run.counters.usage);
  // A run that is failing or being cancelled ends even when its record cannot be written.
  await (ending === 'completed' ? closing : closing.catch(() => undefined));
  await run.events.emit(terminal);
  if (run.logsTail) await run.recorder.eventLog.logTail();
}

/** How the loop ended. */
export interface AgentRunResult {
  response: string;
  output?: RunOutput['output'];
  terminationReason: TerminationReason;
  escalation?: Escalation;
}

/** The run's output, and the RUN_COMPLETED event that reports it. */
export function completedRun(run: AgentRun, result: AgentRunResult): { output: RunOutput; completed: TerminalEvent } {
  const { context, counters, conversation } = run;
  const { response, output, terminationReason, escalation } = result;
  const steps = conversation.steps;
  const metrics = {
    steps: steps.length,
    modelCalls: counters.modelCalls,
    toolCalls: counters.toolCalls,
    toolErrors: counters.toolErrors,
    durationMs: Date.now() - run.startedAt,
  };
  const runOutput: RunOutput = {
    response,
    ...(output !== undefined ? { output } : {}),
    runId: context.runId,
    ...(context.sessionId ? { sessionId: context.sessionId } : {}),
    usage: counters.usage,
    metrics,
    terminationReason,
    steps,
    ...(escalation ? { escalation } : {}),
  };
  // A nested run's parent reads only its response, output, usage and ending: its steps are in the stores and the
  // root's stream, and carried in its result they would only grow its parent's history (and its root's).
  if (context.depth > 0 && steps.length && patched(LEAN_NESTED_OUTPUT_PATCH))
    Object.assign(runOutput, { steps: [], stepsOmitted: steps.length });
  // A result over Temporal's payload cap could never be recorded: the run would retry its last task for ever.
  if (jsonBytes(runOutput) > MAX_RUN_OUTPUT_BYTES) Object.assign(runOutput, { steps: [], stepsOmitted: steps.length });
  // The parsed output repeats the response; over the cap even without the steps, readers parse `response` instead.
  if (jsonBytes(runOutput) > MAX_RUN_OUTPUT_BYTES) delete runOutput.output;
  const data = { response, terminationReason, metrics, ownUsage: counters.ownUsage };
  return { output: runOutput, completed: { type: 'RUN_COMPLETED', usage: counters.usage, data } };
}
