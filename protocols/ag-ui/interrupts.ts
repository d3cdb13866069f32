// Agio approvals as AG-UI interrupts: a tool call waiting for a person becomes an Interrupt (reason `tool_call`, its
// expiry as `expiresAt`), whose id names the durable run, the exact call (its approval binding) and the stream position
// the interrupted AG-UI run ended at, so the RunAgentInput that answers it continues that very run from there. The id
// is not a secret: the bridge checks the run's tenant, and the binding makes a decision for any other call fail.
import { z } from 'zod';
import type { Interrupt } from '@ag-ui/core';

/** A tool call waiting for a decision, as the mapper keeps it from TOOL_AUTH_REQUIRED (and TOOL_AUTH_EXPIRED). */
export interface PendingApproval {
  /** The run of the tree that made the call (a nested run's id, or the root's). */
  runId: string;
  toolCallId: string;
  tool: string;
  args: unknown;
  reason: string;
  binding?: string;
  /** Epoch ms. */
  expiresAt?: number;
}

/** What an interrupt id carries. */
const InterruptRef = z
  .object({
    /** The root of the durable run. */
    run: z.string().regex(/^[A-Za-z0-9._:/-]{1,512}$/),
    call: z.string().min(1).max(256),
    binding: z.string().max(64).optional(),
    /** The stream position (tree cursor) the interrupted AG-UI run ended at. */
    at: z.string().max(2048),
    expiresAt: z.number().int().optional(),
    /** The run was paused (by an operator, or for a budget): resolving it resumes the run. */
    pause: z.literal(true).optional(),
  })
  .strict();
/** What an interrupt id carries. */
export type InterruptRef = z.infer<typeof InterruptRef>;

const PREFIX = 'agio1.';

/** The id of the interrupt for a waiting call. */
export function interruptIdOf(ref: InterruptRef): string {
  return PREFIX + Buffer.from(JSON.stringify(ref)).toString('base64url');
}

/** What an interrupt id names; undefined for an id Agio did not make. */
export function parseInterruptId(id: string): InterruptRef | undefined {
  if (!id.startsWith(PREFIX)) return undefined;
  try {
    const parsed = InterruptRef.safeParse(JSON.parse(Buffer.from(id.slice(PREFIX.length), 'base64url').toString()));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The answer an approval interrupt expects (AG-UI's tool-call convention, plus Agio's own `message` and `remember`).
 */
export const APPROVAL_RESPONSE_SCHEMA = {
  type: 'object',
  properties: {
    approved: { type: 'boolean' },
    message: { type: 'string', description: 'Denied: what the model is told' },
    remember: { type: 'boolean', description: 'Approved: allow this exact call again for the rest of the run' },
  },
  required: ['approved'],
};

/** The AG-UI Interrupt of a waiting call (`subagentRunId`: the nested run that asked, absent for the root). */
export function approvalInterrupt(
  pending: PendingApproval,
  rootRunId: string,
  at: string,
  subagentRunId: string | undefined,
): Interrupt {
  const id = interruptIdOf({
    run: rootRunId,
    call: pending.toolCallId,
    at,
    ...(pending.binding ? { binding: pending.binding } : {}),
    ...(pending.expiresAt !== undefined ? { expiresAt: pending.expiresAt } : {}),
  });
  return {
    id,
    reason: 'tool_call',
    toolCallId: pending.toolCallId,
    message: `Allow ${pending.tool}(${JSON.stringify(pending.args) ?? ''})? ${pending.reason}`.slice(0, 2000),
    responseSchema: APPROVAL_RESPONSE_SCHEMA,
    ...(pending.expiresAt !== undefined ? { expiresAt: new Date(pending.expiresAt).toISOString() } : {}),
    ...(subagentRunId ? { subagentRunId } : {}),
    metadata: { agio: { runId: pending.runId, tool: pending.tool, args: pending.args } },
  };
}

/** Why a run of the tree was paused: RUN_PAUSED's data (who, why, the budget spent). */
export interface PausedRun {
  runId: string;
  by?: string;
  reason?: string;
  budget?: unknown;
}

/**
 * The AG-UI Interrupt of a paused run (reason `agio:run_paused`): resolving it resumes the run (the "control" scope),
 * cancelling it leaves the run paused; either way the next AG-UI run follows the run from here.
 */
export function pauseInterrupt(paused: PausedRun, rootRunId: string, at: string): Interrupt {
  const why = [paused.by ? ` by ${paused.by}` : '', paused.reason ? ` (${paused.reason})` : ''].join('');
  return {
    id: interruptIdOf({ run: rootRunId, call: 'run', at, pause: true }),
    reason: 'agio:run_paused',
    message: `The run was paused${why}. Resolve this interrupt to resume it, or cancel it to leave the run paused.`,
    metadata: { agio: { ...paused } },
  };
}

/** What a resume entry's payload decides: approve (optionally remembered) or deny with a message for the model. */
export function decisionOf(
  status: 'resolved' | 'cancelled',
  payload: unknown,
): { approve: boolean; message?: string; remember?: boolean } | undefined {
  if (status === 'cancelled') return { approve: false, message: 'The person cancelled this call.' };
  const parsed = z
    .object({ approved: z.boolean(), message: z.string().max(4000).optional(), remember: z.boolean().optional() })
    .passthrough()
    .safeParse(payload);
  if (!parsed.success) return undefined;
  const { approved, message, remember } = parsed.data;
  return approved ? { approve: true, ...(remember ? { remember } : {}) } : { approve: false, message };
}
