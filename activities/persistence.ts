// The activities that keep what users look at after a run: the session's conversation, the run's steps (as
// they are committed, idempotently by step id), its trace spans, its root's event log, and full outputs of
// large tool results.
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType, resolveLimits, type ChatMessage, type Step } from '../common';
import type { SpanInput, Stores } from '../stores';
import { fitConversation } from '../stores/conversation';
import { webhookEnqueuer } from './webhooks/enqueue';
import type {
  HandedStep,
  HandOffInput,
  LoadConversationInput,
  LogEventsInput,
  PersistStepsInput,
  RecordRunInput,
  StoreCompactedInput,
} from '../common/contracts/persistence';

/** How much of a session's earlier conversation a run starts with, when its call names no size. */
const DEFAULT_HISTORY_BYTES = Math.floor(resolveLimits().maxModelInputBytes / 2);

/**
 * The span id of a tool call, `<runId>:tool:<call>`: `<call>` is what follows `<runId>/tool/` in the id of the nested
 * run the call started (`3-call_x`; `call_x` for runs of earlier releases), which finds its parent span the same way;
 * else the step's index and the call id, so calls of one run with the same id (`call_0` every turn) stay apart.
 */
export function toolSpanId(runId: string, call: string): string {
  return `${runId}:tool:${call}`;
}

/** The `<call>` part of a tool step's span id (see {@link toolSpanId}). */
export function toolSpanCall(runId: string, step: Step): string {
  const child = step.metadata?.childRunId;
  const prefix = `${runId}/tool/`;
  if (typeof child === 'string' && child.startsWith(prefix)) return child.slice(prefix.length);
  return `${step.index}-${step.toolCallId}`;
}

/** The span a nested run hangs under: its agent tool's call (see {@link toolSpanId}), else its parent run. */
export function parentSpanOf(
  context: Pick<RecordRunInput['context'], 'runId' | 'parentRunId' | 'toolCallId'>,
): string | undefined {
  const { runId, parentRunId, toolCallId } = context;
  if (!parentRunId) return undefined;
  const prefix = `${parentRunId}/tool/`;
  if (!toolCallId) return parentRunId;
  return toolSpanId(parentRunId, runId.startsWith(prefix) ? runId.slice(prefix.length) : toolCallId);
}

/** Spans for committed steps: a model span per assistant step, a tool span per tool result. */
export function stepSpans(context: RecordRunInput['context'], steps: Step[]): SpanInput[] {
  const spans: SpanInput[] = [];
  for (const step of steps) {
    const startedAt = step.metrics?.startedAt;
    if (startedAt === undefined) continue;
    const endedAt = startedAt + (step.metrics?.durationMs ?? 0);
    const common = {
      tenant: context.tenant,
      traceId: context.rootRunId,
      parentSpanId: context.runId,
      runId: context.runId,
      startedAt,
      endedAt,
    };
    if (step.role === 'assistant') {
      spans.push({
        ...common,
        spanId: step.id,
        kind: 'model',
        name: 'model',
        status: 'ok',
        ...(step.usage ? { usage: step.usage } : {}),
        attributes: { attempt: step.metrics?.attempt, toolCalls: step.toolCalls?.length ?? 0 },
      });
    } else if (step.role === 'tool' && step.toolCallId) {
      spans.push({
        ...common,
        spanId: toolSpanId(context.runId, toolSpanCall(context.runId, step)),
        kind: 'tool',
        name: step.name ?? 'tool',
        status: step.isError ? 'error' : 'ok',
        attributes: { stepId: step.id },
      });
    }
  }
  return spans;
}

/**
 * An activity that first stores the steps its input hands over (a turn's write riding on the call that starts the
 * next turn, see RunRecorder.handOff); every attempt writes them again, which stores nothing twice.
 */
export function persistingFirst<I extends { persist?: HandOffInput; messages?: ChatMessage[] }, O>(
  activity: (input: I) => Promise<O>,
  persistSteps: (input: PersistStepsInput) => Promise<void>,
  conversationOf: (input: I) => Promise<ChatMessage[]>,
): (input: I) => Promise<O> {
  return async (input) => {
    const { persist } = input;
    if (!persist) return activity(input);
    // The conversation the handed steps name: in the input, or read once here and passed on to the call.
    const messages = input.messages ?? (await conversationOf(input));
    await persistSteps({
      ...persist,
      steps: persist.steps.map((step) => withMessage(step, persist.context.runId, messages)),
    });
    return activity({ ...input, messages });
  };
}

/** A handed step made whole again from the message it names (and the run it belongs to). */
function withMessage(step: HandedStep, runId: string, messages: ChatMessage[] = []): Step {
  if (!('message' in step)) return step;
  const { message, index, ...extras } = step;
  const m = messages[message];
  if (!m)
    throw ApplicationFailure.create({
      type: ErrorType.ModelBadRequest,
      message: `step ${index} of ${runId} names message ${message}, which the call's input does not hold`,
      nonRetryable: true,
    });
  const { content, ...fields } = m;
  return { id: `${runId}:${index}`, runId, index, ...fields, content, ...extras };
}

/** Builds the persistence activities over the worker's stores. */
export function createPersistenceActivities(stores: Stores) {
  const enqueueWebhooks = stores.webhooks ? webhookEnqueuer(stores.webhooks) : undefined;
  /** Records a run (and its run span) starting or ending. */
  async function recordRun(input: RecordRunInput): Promise<void> {
    const { context } = input;
    await stores.sessions.recordRun({
      tenant: context.tenant,
      runId: context.runId,
      rootRunId: context.rootRunId,
      agent: input.agent,
      status: input.status,
      startedAt: input.startedAt,
      ...(context.sessionId ? { sessionId: context.sessionId } : {}),
      ...(context.parentRunId ? { parentRunId: context.parentRunId } : {}),
      ...(input.endedAt ? { endedAt: input.endedAt } : {}),
      ...(input.usage ? { usage: input.usage } : {}),
    });
    const parentSpanId = parentSpanOf(context);
    await stores.traces.recordSpan({
      tenant: context.tenant,
      traceId: context.rootRunId,
      spanId: context.runId,
      ...(parentSpanId ? { parentSpanId } : {}),
      kind: 'run',
      name: input.agent,
      runId: context.runId,
      startedAt: input.startedAt,
      status: input.status === 'running' ? 'running' : input.status === 'completed' ? 'ok' : 'error',
      ...(input.endedAt ? { endedAt: input.endedAt } : {}),
    });
    if (input.events?.length)
      await logEvents({
        tenant: context.tenant,
        rootRunId: input.eventLogId ?? context.rootRunId,
        events: input.events,
      });
  }

  /** Stores committed steps and their spans; a retried call writes nothing twice. */
  async function persistSteps(input: PersistStepsInput): Promise<void> {
    const { context } = input;
    await stores.sessions.appendSteps(context.tenant, input.steps, context.sessionId);
    for (const span of stepSpans(context, input.steps)) await stores.traces.recordSpan(span);
    if (input.events?.length)
      await logEvents({
        tenant: context.tenant,
        rootRunId: input.eventLogId ?? context.rootRunId,
        events: input.events,
      });
  }

  /**
   * Adds a root run's events to its event log; a retried call stores nothing twice. Webhook deliveries of its events
   * are enqueued first, so a store that fails the append leaves them enqueued (docs/ARCHITECTURE.md, "Webhooks").
   */
  async function logEvents(input: LogEventsInput): Promise<void> {
    await enqueueWebhooks?.(input.tenant, input.rootRunId, input.events);
    await stores.events.append(input.tenant, input.rootRunId, input.events);
  }

  /**
   * The session's earlier conversation, to continue it, fitted into `maxBytes` (runs that name none: half the default
   * maxModelInputBytes), so a session whose earlier runs grew large still starts its next run.
   */
  async function loadConversation(input: LoadConversationInput): Promise<ChatMessage[]> {
    return fitConversation(
      await stores.sessions.loadConversation(input.tenant, input.sessionId),
      input.maxBytes ?? DEFAULT_HISTORY_BYTES,
    );
  }

  /**
   * Stores contents compacted out of a run's conversation with the tool results, so get_tool_result reads them
   * back; returns their refs, in order. A ref depends only on the run and the key, so a retry stores nothing twice.
   */
  async function storeCompacted(input: StoreCompactedInput): Promise<string[]> {
    const refs: string[] = [];
    for (const item of input.items)
      refs.push(
        await stores.toolResults.put(input.tenant, { runId: input.runId, toolCallId: item.key, content: item.content }),
      );
    return refs;
  }

  return { recordRun, persistSteps, logEvents, loadConversation, storeCompacted };
}
