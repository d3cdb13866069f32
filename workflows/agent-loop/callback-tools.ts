// Callback tools (docs/ARCHITECTURE.md, "Callback tools"): an activity starts the outside work once, then the run waits
// durably (a condition with a timer: days, across worker restarts, holding no activity) for the completeCallback
// update that carries its result. A result is taken once; one after the timeout is refused, and the model is told.
import {
  ApplicationFailure,
  condition,
  isCancellation,
  patched,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import { setHandler } from '@temporalio/workflow';
import {
  ErrorType,
  type AgentRunResume,
  type CallbackAck,
  type CallbackCompletion,
  type PendingCallback,
  type RunContext,
  type Step,
  type ToolCall,
  type ToolSpec,
} from '../../common';
import { completeCallbackUpdate } from '../../common/messages';
import type { RunControl } from '../lifecycle/control';
import type { Emitter } from '../events/emitter';
import { failureMessage } from '../lifecycle/run-errors';
import type { AgioActivities } from '../../common/contracts/activities';

/** The patch under which a tool whose spec has `callback` starts its work and waits (asked only for such a call). */
export const CALLBACK_TOOLS_PATCH = 'agio-callback-tools';

/**
 * The patch under which a client tool (CallbackWait.client) waits for its client's result (asked only for such a call).
 */
export const CLIENT_TOOLS_PATCH = 'agio-client-tools';

/** How many finished callback ids a run remembers, to tell a late or second result why it is refused. */
const REMEMBERED_CALLBACKS = 500;

/** What a run's callbacks carry across continue-as-new. */
export type CallbacksCarried = NonNullable<AgentRunResume['callbacks']>;

interface Waiting extends PendingCallback {
  completion?: CallbackCompletion;
  /** A client tool's call (CallbackWait.client): the only kind a `client_tool` completion may answer. */
  client?: true;
}

const proxies = new Map<string, AgioActivities['startCallbackTool']>();

/** startCallbackTool with the tool's start timeout and attempts (the start is idempotent by its call's key). */
function startActivity(spec: ToolSpec): AgioActivities['startCallbackTool'] {
  const key = `${spec.timeoutMs}/${spec.maxAttempts}`;
  let fn = proxies.get(key);
  if (!fn) {
    fn = proxyActivities<AgioActivities>({
      startToCloseTimeout: spec.timeoutMs,
      retry: { maximumAttempts: spec.maxAttempts, initialInterval: '1s', backoffCoefficient: 2 },
    }).startCallbackTool;
    proxies.set(key, fn);
  }
  return fn;
}

/** The callback tool calls of one run: their waits, and the handler their results arrive at. */
export class Callbacks {
  private readonly waiting = new Map<string, Waiting>();
  private readonly finished = new Map<string, 'completed' | 'expired'>();

  constructor(
    private readonly events: Emitter,
    private readonly context: RunContext,
    /** Pause bookkeeping: a run that only waits for outside work counts as parked when paused. */
    private readonly control?: RunControl,
    /** What the run carried across continue-as-new: the calls already finished. */
    carried?: CallbacksCarried,
  ) {
    for (const [id, how] of carried?.finished ?? []) this.finished.set(id, how);
    setHandler(
      completeCallbackUpdate,
      (completion): CallbackAck => {
        const entry = this.waiting.get(completion.callbackId)!;
        entry.completion = completion;
        return { toolCallId: entry.toolCallId, tool: entry.tool, completed: true };
      },
      { validator: (completion) => this.validate(completion) },
    );
  }

  /** Starts the call's outside work and waits for its result (or the timeout); returns the tool step. */
  async run(call: ToolCall, spec: ToolSpec & { callback: { timeoutMs: number } }, base: Step): Promise<Step> {
    const startedAt = Date.now();
    const callbackId = String(base.index);
    const workflowId = workflowInfo().workflowId;
    const expiresAt = startedAt + spec.callback.timeoutMs;
    const entry: Waiting = { toolCallId: call.id, tool: call.name, workflowId, callbackId, expiresAt };
    // Waiting before the work starts: a result may come back before the start activity has reported.
    this.waiting.set(callbackId, entry);
    const metrics = () => ({ startedAt, durationMs: Date.now() - startedAt });
    // A client tool starts nothing: its client learns of the call from the stream and sends the result.
    if (spec.callback.client && patched(CLIENT_TOOLS_PATCH)) {
      entry.client = true;
      return this.wait(call, spec, base, entry, startedAt);
    }
    try {
      const start = startActivity(spec)({
        runId: this.context.runId,
        workflowId,
        toolCallId: call.id,
        callbackId,
        tenant: this.context.tenant,
        stepId: base.id,
        name: call.name,
        arguments: call.arguments,
        expiresAt,
      });
      const started = await (this.control ? this.control.track(start) : start);
      if (!started.started) {
        this.forget(callbackId, 'expired');
        return { ...base, content: started.content, isError: true, metrics: metrics() };
      }
    } catch (err) {
      this.forget(callbackId, 'expired');
      if (isCancellation(err)) throw err;
      const message = `Error: tool "${call.name}" could not start its work: ${failureMessage(err)}`;
      return { ...base, content: message, isError: true, metrics: metrics() };
    }
    return this.wait(call, spec, base, entry, startedAt);
  }

  /** Announces the waiting call and waits for its result (or the timeout); returns the tool step. */
  private async wait(
    call: ToolCall,
    spec: ToolSpec & { callback: { timeoutMs: number } },
    base: Step,
    entry: Waiting,
    startedAt: number,
  ): Promise<Step> {
    const { workflowId, expiresAt, callbackId } = entry;
    const metrics = () => ({ startedAt, durationMs: Date.now() - startedAt });
    await this.events.emit({
      type: 'TOOL_CALLBACK_WAITING',
      data: { toolCallId: call.id, tool: call.name, workflowId, runId: this.context.runId, expiresAt, callbackId },
    });
    const wait = condition(() => entry.completion !== undefined, Math.max(0, expiresAt - Date.now()));
    try {
      await (this.control ? this.control.waitForPerson(wait) : wait);
    } finally {
      // A result the update accepted counts even if the timer fired in the same workflow task: its sender was told so.
      this.forget(callbackId, entry.completion ? 'completed' : 'expired');
    }
    const done = entry.completion;
    if (!done) {
      const content = `Error: tool "${call.name}" started its work but no result came back within ${describe(spec.callback.timeoutMs)} (reason: timeout); a later result will be refused.`;
      return { ...base, content, isError: true, metrics: metrics(), metadata: { callback: 'timeout' } };
    }
    const isError = done.error !== undefined;
    const content = isError ? `Error: ${done.error}` : resultText(done.result);
    return {
      ...base,
      content: cut(content, this.context.limits.maxToolOutputBytes),
      isError,
      metrics: metrics(),
      metadata: { callback: 'completed', via: done.via },
    };
  }

  /**
   * What continue-as-new carries (none for a run that never ran a callback tool, so its input is as before): the
   * finished callback ids, so a second or late result is still told why it is refused. Waits never cross it: a run
   * continues as new between turns.
   */
  carried(): CallbacksCarried | undefined {
    return this.finished.size ? { finished: [...this.finished.entries()] } : undefined;
  }

  /** Callback calls waiting for their result (for the state query). */
  list(): PendingCallback[] {
    return [...this.waiting.values()]
      .filter((w) => !w.completion)
      .map(({ toolCallId, tool, workflowId, callbackId, expiresAt }) => ({
        toolCallId,
        tool,
        workflowId,
        callbackId,
        expiresAt,
      }));
  }

  private forget(callbackId: string, how: 'completed' | 'expired'): void {
    this.waiting.delete(callbackId);
    this.finished.set(callbackId, how);
    if (this.finished.size > REMEMBERED_CALLBACKS) this.finished.delete(this.finished.keys().next().value!);
  }

  /**
   * Synchronous: a result for no waiting call, another tenant, a completed or expired call is refused with its type.
   */
  private validate(completion: CallbackCompletion): void {
    const id = typeof completion?.callbackId === 'string' ? completion.callbackId : '';
    const entry = this.waiting.get(id);
    const tenantOk = completion?.tenant === undefined || completion.tenant === this.context.tenant;
    // A frontend answers its own tools' calls only: a callback tool's outside work is not its to complete.
    const kindOk = completion?.via !== 'client_tool' || entry?.client === true;
    if (entry && tenantOk && kindOk) {
      if (entry.completion) throw refusal(ErrorType.CallbackAlreadyCompleted, entry.tool, 'was already completed');
      if (completion.error !== undefined && typeof completion.error !== 'string')
        throw ApplicationFailure.create({ type: ErrorType.CallbackNotFound, message: '"error" must be a string' });
      return;
    }
    const finished = tenantOk ? this.finished.get(id) : undefined;
    if (finished === 'completed') throw refusal(ErrorType.CallbackAlreadyCompleted, undefined, 'was already completed');
    if (finished === 'expired')
      throw refusal(ErrorType.CallbackExpired, undefined, 'is no longer waiting: it timed out or could not start');
    throw ApplicationFailure.create({ type: ErrorType.CallbackNotFound, message: 'no callback is waiting here' });
  }
}

function refusal(type: string, tool: string | undefined, what: string): ApplicationFailure {
  return ApplicationFailure.create({
    type,
    nonRetryable: true,
    message: `this callback${tool ? ` of "${tool}"` : ''} ${what}`,
  });
}

/** A result as the model reads it: a string as it is, anything else as JSON. */
function resultText(result: unknown): string {
  return typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null');
}

/** Cuts text to about `max` bytes (by characters: a UTF-16 unit is at most 3 bytes of UTF-8, so a third is safe). */
function cut(text: string, max: number): string {
  if (text.length <= max / 3) return text;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
    if (bytes > max - 100)
      return `${text.slice(0, i)}\n[… callback result truncated: ${text.length - i} characters omitted …]`;
  }
  return text;
}

/** A timeout as people say it. */
function describe(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 100) / 10} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 6000) / 10} min`;
  return `${Math.round(ms / 360_000) / 10} h`;
}
