// What a RunAgentInput asks of Agio, decided before any byte of the answer: a new turn starts a durable run (named by
// tenant, thread and AG-UI run id, so the same request again finds it), the same request again follows that run from
// its start, and resume entries decide the waiting calls of the run their interrupts name and follow it from where the
// interrupted AG-UI run ended. Request faults (no user turn, a decider without the `decide` scope) are AgUiRequestError
// (an HTTP status); faults the protocol answers in-stream (an interrupt that cannot be correlated, expired or stale)
// are a `refusal`, sent as RUN_ERROR.
import type { AgioClient } from '../../client/agio-client';
import type { RunHandle } from '../../client/run-handle';
import { CallbackRefusedError } from '../../client/callbacks';
import {
  DecisionRejectedError,
  RunClosedError,
  RunNotFoundError,
  RunRefusedError,
  UnknownToolCallError,
} from '../../client/errors';
import { cursorAt, parseCursor, type TreeCursor } from '../../client/tree-cursor';
import { ErrorType } from '../../common/errors';
import { decisionOf, parseInterruptId, type InterruptRef } from './interrupts';
import {
  agioRunIdOf,
  contextText,
  legacyAgioRunIdOf,
  newUserInput,
  rootRunOfMessage,
  sessionIdOf,
  threadRunPrefixOf,
  toolAnswersOf,
  type AgUiRunInput,
  type ResumeEntry,
  type ToolAnswer,
} from './run-input';

/** A request the bridge answers with an HTTP error instead of a stream. */
export class AgUiRequestError extends Error {
  override name = 'AgUiRequestError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Who asks, as the bridge's token says. */
export interface AgUiCaller {
  tenant: string;
  identity: string;
  roles?: string[];
  /** The token may decide approvals (the `decide` scope). */
  mayDecide: boolean;
  /** The token may pause and resume runs (the `control` scope): resolving a pause interrupt resumes the run. */
  mayControl?: boolean;
}

/** What the stream follows: the durable run and the position its AG-UI run starts after, or why it cannot. */
export type PreparedRun =
  | { handle: RunHandle; rootRunId: string; from: TreeCursor; created: boolean; answered?: string[] }
  | { refusal: { code: string; message: string } };

const refuse = (code: string, message: string): PreparedRun => ({ refusal: { code, message } });

/** The memo's tenant and agent of a run, or undefined when there is no such run. */
async function ownerOf(handle: RunHandle): Promise<{ tenant?: string; agent?: string } | undefined> {
  try {
    const { tenant, agent } = await handle.describe();
    return { tenant, agent };
  } catch (err) {
    if (err instanceof RunNotFoundError) return undefined;
    throw err;
  }
}

/** Starts or finds the run a RunAgentInput names (see the file comment). */
export async function prepareRun(
  agio: AgioClient,
  caller: AgUiCaller,
  agent: string,
  input: AgUiRunInput,
  /** Admits a new run (the tenant's running-runs quota: throws when at it); the function returned gives it back. */
  admit: () => Promise<() => void> = async () => () => undefined,
): Promise<PreparedRun> {
  if (input.resume) return resumeRun(agio, caller, agent, input.resume);
  const answers = toolAnswersOf(input);
  if (answers.length) return answerClientTools(agio, caller, agent, answers);
  const rootRunId = agioRunIdOf(caller.tenant, input.threadId, input.runId);
  for (const id of [rootRunId, legacyAgioRunIdOf(caller.tenant, input.threadId, input.runId)]) {
    const existing = agio.getHandle(id);
    if (await ownerOf(existing)) return { handle: existing, rootRunId: id, from: cursorAt(), created: false };
  }
  const turn = newUserInput(input);
  if (!turn)
    throw new AgUiRequestError(400, 'invalid_request', 'messages: the input must end with a user message to answer');
  const interrupted = await interruptedRunOf(agio, threadRunPrefixOf(caller.tenant, input.threadId));
  if (interrupted)
    return refuse(
      'pending_interrupts',
      `thread "${input.threadId.slice(0, 80)}" has a run waiting on a decision (${interrupted}): answer its interrupts ` +
        'with resume (status cancelled denies) before a new message',
    );
  const context = contextText(input);
  const state = isRecord(input.state) && Object.keys(input.state).length ? input.state : undefined;
  const spec = agio.agents.find(agent);
  const clientTools = (input.tools ?? []).map((t) => ({
    name: t.name,
    description: t.description,
    ...(isRecord(t.parameters) ? { parameters: t.parameters } : {}),
    timeoutMs: CLIENT_TOOL_TIMEOUT_MS,
  }));
  if (clientTools.some((t) => !/^[A-Za-z0-9_-]{1,64}$/.test(t.name)))
    throw new AgUiRequestError(400, 'invalid_request', 'tools: names are 1-64 letters, digits, _ or -');
  const offered = spec && clientTools.length && spec.kind === 'llm' ? { ...spec, clientTools } : agent;
  const release = await admit();
  const handle = await agio
    .start(offered, context ? `${context}\n\n${turn}` : turn, {
      tenant: caller.tenant,
      runId: rootRunId,
      sessionId: sessionIdOf(input.threadId),
      ...(state ? { state } : {}),
    })
    .catch((err: unknown) => {
      release();
      throw err;
    });
  if (!handle.created) release();
  return { handle, rootRunId, from: cursorAt(), created: handle.created };
}

/**
 * A run of the thread (its runs' ids share `prefix`; nested runs' ids begin with their root's) still running with a
 * call waiting for a person, found in visibility: AG-UI refuses a new message on a thread with open interrupts. A
 * visibility that cannot answer refuses nothing.
 */
async function interruptedRunOf(agio: AgioClient, prefix: string): Promise<string | undefined> {
  return agio.waitingRun(prefix).catch(() => undefined);
}

/** How long a run waits for the client to answer one of its tools' calls. */
export const CLIENT_TOOL_TIMEOUT_MS = 24 * 3_600_000;

/** Sends the client's answers to the calls its tools were asked (they wait in the run), and follows the run on. */
async function answerClientTools(
  agio: AgioClient,
  caller: AgUiCaller,
  agent: string,
  answers: ToolAnswer[],
): Promise<PreparedRun> {
  const roots = new Set(answers.map((a) => (a.callMessageId ? rootRunOfMessage(a.callMessageId) : undefined)));
  const [run] = roots;
  if (roots.size !== 1 || !run)
    return refuse('unknown_tool_call', 'the tool messages answer calls that no single Agio run of this thread made');
  const handle = agio.getHandle(run);
  const owner = await ownerOf(handle);
  if (!owner || owner.tenant !== caller.tenant || owner.agent !== agent)
    return refuse('unknown_tool_call', `no run of agent "${agent}" waits on these tool calls`);
  for (const answer of answers) {
    try {
      const result = answer.error ? { error: answer.error } : { result: answer.content };
      await handle.completeCallback(answer.toolCallId, result, { via: 'client_tool' });
    } catch (err) {
      if (err instanceof CallbackRefusedError && err.reason === 'already_completed') continue;
      if (err instanceof CallbackRefusedError) return refuse(`tool_call_${err.reason}`, err.message);
      throw err;
    }
  }
  return { handle, rootRunId: run, from: cursorAt(), created: false, answered: answers.map((a) => a.toolCallId) };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Decides the calls the resume entries answer, and follows their run from where its interrupted AG-UI run ended. */
async function resumeRun(
  agio: AgioClient,
  caller: AgUiCaller,
  agent: string,
  entries: ResumeEntry[],
): Promise<PreparedRun> {
  if (!caller.mayDecide)
    throw new AgUiRequestError(403, 'forbidden', 'resume decides approvals: this token lacks the "decide" scope');
  const refs: InterruptRef[] = [];
  for (const entry of entries) {
    const ref = parseInterruptId(entry.interruptId);
    if (!ref) return refuse('unknown_interrupt', `interrupt "${entry.interruptId.slice(0, 80)}" is not one of Agio's`);
    refs.push(ref);
  }
  const run = refs[0].run;
  if (refs.some((r) => r.run !== run))
    return refuse('unknown_interrupt', 'the interrupts answered name different runs');
  const from = parseCursor(refs[0].at);
  if (!from) return refuse('unknown_interrupt', 'the interrupt names no stream position');
  const handle = agio.getHandle(run);
  const owner = await ownerOf(handle);
  // Another tenant's run is answered exactly as a run that does not exist.
  if (!owner || owner.tenant !== caller.tenant || owner.agent !== agent)
    return refuse('unknown_interrupt', `no run of agent "${agent}" waits on these interrupts`);
  for (const [i, entry] of entries.entries()) {
    const ref = refs[i];
    if (ref.pause) {
      if (entry.status === 'cancelled') continue;
      if (!caller.mayControl) return refuse('forbidden', 'resuming a paused run needs the "control" scope');
      // A run that has ended since the pause has nothing to resume: the stream follows it to its end.
      await handle.resume({ by: caller.identity, reason: 'resumed from AG-UI' }).catch((err: unknown) => {
        if (!(err instanceof RunClosedError)) throw err;
      });
      continue;
    }
    const decision = decisionOf(entry.status, entry.payload);
    if (!decision)
      return refuse(
        'invalid_resume_payload',
        `resume ${i}: payload must be { approved: boolean, message?, remember? }`,
      );
    // Past its expiry a call is denied or escalated (then the decision is refused below), or the run paused and the
    // call still waits for this very decision (`onExpiry: pause`), so the run is asked rather than the clock.
    const expired =
      entry.status === 'resolved' && ref.expiresAt !== undefined && ref.expiresAt < Date.now()
        ? refuse(
            'interrupt_expired',
            `interrupt for call "${ref.call}" expired at ${new Date(ref.expiresAt!).toISOString()}`,
          )
        : undefined;
    const refusal = await decide(handle, ref, decision, caller, expired);
    if (refusal) return refusal;
  }
  return { handle, rootRunId: run, from, created: false };
}

/**
 * Sends one decision, bound to the exact call; a call already decided (a resume sent again) is not an error, unless
 * the interrupt had expired (`expired`: the refusal then): the expiry decided it, or escalated it away from this binding.
 */
async function decide(
  handle: RunHandle,
  ref: InterruptRef,
  decision: NonNullable<ReturnType<typeof decisionOf>>,
  caller: AgUiCaller,
  expired?: PreparedRun,
): Promise<PreparedRun | undefined> {
  const bound = {
    by: caller.identity,
    ...(ref.binding ? { binding: ref.binding } : {}),
    ...(caller.roles?.length ? { roles: caller.roles } : {}),
  };
  try {
    if (decision.approve) await handle.approve(ref.call, { ...bound, remember: decision.remember });
    else await handle.deny(ref.call, { ...bound, message: decision.message });
    return undefined;
  } catch (err) {
    if (err instanceof DecisionRejectedError) return expired;
    if (err instanceof UnknownToolCallError) return expired ?? refuse('unknown_interrupt', err.message);
    if (!(err instanceof RunRefusedError)) throw err;
    const why = err.cause?.message ?? err.message;
    if (/already been decided/.test(why)) return expired;
    if (err.type === ErrorType.StaleApproval) return expired ?? refuse('stale_interrupt', why);
    if (err.type === ErrorType.ApprovalEscalated) return refuse('forbidden', why);
    return refuse('unknown_interrupt', why);
  }
}
