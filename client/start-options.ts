// What AgioClient.start takes besides the agent and its input, and the workflow arguments it builds from them: the
// run's context (tenant, session, limits, permissions, the caller's trace) and a start by name's input.
import { context as otelContext, isSpanContextValid, trace } from '@opentelemetry/api';
import type { AgentByNameInput, ChatMessage, LoopPosition, ModelSettings, PermissionRule, RunContext } from '../common';
import type { OnActiveRun } from '../common/session-runs';

/** Options of {@link AgioClient.start}. */
export interface StartOptions {
  /**
   * A caller-chosen run id makes the start idempotent: the same request again returns the same run, running or closed
   * (within the namespace's retention), with `created: false`; a different request under the id throws
   * IdempotencyConflictError. Without it every start is a new run (`run-<uuid>`). See docs/IDEMPOTENCY.md.
   */
  runId?: string;
  sessionId?: string;
  tenant?: string;
  userId?: string;
  limits?: Partial<RunContext['limits']>;
  state?: Record<string, unknown>;
  /** Permission rules for this run, checked before the agent's own (and inherited by nested runs). */
  permissions?: PermissionRule[];
  /** Loop agents: start at this position (seed 001's resume, for runs that were terminated or reset). */
  resumeFrom?: LoopPosition;
  /**
   * Model settings for this run, merged over the agent's own (a workflow agent: over every LLM sub-agent's; agents
   * used as tools keep theirs). They travel in the spec the run records.
   */
  modelSettings?: ModelSettings;
  /**
   * A run by a name this client does not hold: the worker refuses `limits` and `modelSettings.maxTokens` above the
   * agent's own (the run fails with LimitAboveAgent). With a spec the caller checks that itself (the bridge does).
   */
  tightenOnly?: boolean;
  /**
   * With `sessionId`: what to do when the session has a run running that was started with this option too (see
   * common/session-runs.ts): `reject` (SessionBusyError naming it), `enqueue` (the run starts when that one ends; its
   * handle finds no run until then), `interrupt` (that run is cancelled, its steps kept in the session's conversation),
   * `rollback` (cancelled and its steps taken out). Unset: the run starts at once beside any other (as before).
   */
  onActiveRun?: OnActiveRun;
}

/** The context a start sends (`limits`: resolved for a spec, the caller's overrides for a name). */
export function contextOf(opts: StartOptions, limits: Partial<RunContext['limits']> | undefined): Partial<RunContext> {
  return {
    tenant: opts.tenant ?? 'default',
    ...(opts.sessionId ? { sessionId: opts.sessionId } : {}),
    ...(opts.userId ? { userId: opts.userId } : {}),
    ...(limits ? { limits } : {}),
    ...(opts.permissions ? { permissions: opts.permissions } : {}),
    ...activeTrace(),
  } as Partial<RunContext>;
}

/** The caller's active OpenTelemetry span, if any: the run's spans join its trace, under it. */
function activeTrace(): Pick<RunContext, 'traceId' | 'spanId'> {
  const span = trace.getSpanContext(otelContext.active());
  return span && isSpanContextValid(span) ? { traceId: span.traceId, spanId: span.spanId } : {};
}

/** The agentByName workflow's input: the name, and the settings the worker applies once it has the spec. */
export function byNameArgs(name: string, input: string | ChatMessage[], opts: StartOptions): AgentByNameInput {
  return {
    agentName: name,
    input,
    context: contextOf(opts, opts.limits),
    ...(opts.state ? { state: opts.state } : {}),
    ...(opts.resumeFrom ? { resumeFrom: opts.resumeFrom } : {}),
    ...(opts.modelSettings ? { modelSettings: opts.modelSettings } : {}),
    ...(opts.tightenOnly ? { tightenOnly: true } : {}),
  };
}
