// GET /approvals: the caller's tenant's approvals inbox, every tool call of its runs waiting for a person at any depth
// of nesting (client/approval-inbox.ts), filtered by agent, root run and tool. Decisions go through the existing
// POST /runs/:id/tool-calls/:callId/approve|deny, quoting the item's binding.
import { z } from 'zod';
import { AgentNameFilter } from '../../common/specs';
import { ErrorType } from '../../common/errors';
import { RunRefusedError } from '../../client/errors';
import { apiRoute, defineRoute } from '../api-route';
import type { Grant } from '../auth';
import { HttpError } from '../errors';
import type { Routes } from './context';

/** The query of GET /approvals; unknown parameters are refused. */
export const ApprovalsQuery = z
  .object({
    agent: AgentNameFilter.optional(),
    rootRunId: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,512}$/, 'rootRunId: a root run id')
      .optional(),
    tool: z
      .string()
      .regex(/^[\x21-\x7e]{1,128}$/, 'tool: 1-128 visible ASCII characters')
      .optional(),
    limit: z.coerce.number().int().min(1).max(500).optional(),
  })
  .strict();

const Expiry = z.enum(['deny', 'escalate', 'pause']);

/** One pending call of the inbox. */
export const ApprovalItem = z.object({
  toolCallId: z.string(),
  tool: z.string(),
  workflowId: z.string().describe('The run that asked: decide through POST /runs/<this>/tool-calls/<toolCallId>/…'),
  runId: z.string(),
  rootRunId: z.string(),
  agent: z.string(),
  depth: z.number().int(),
  args: z.unknown().optional().describe('The arguments, when their JSON is at most 4096 characters'),
  argsPreview: z.string().optional().describe('Longer arguments: the head of their JSON'),
  argsChars: z.number().int().optional(),
  reason: z.string().optional(),
  rule: z.object({}).catchall(z.unknown()).optional().describe('The permission rule that asked'),
  askedAt: z.string().optional(),
  expiresAt: z.string().optional(),
  onExpiry: Expiry.optional(),
  escalatedTo: z.string().optional().describe('Escalated: only tokens with this role decide it, quoting the binding'),
  expired: z.object({ action: Expiry, at: z.string() }).optional(),
  binding: z.string().optional().describe('Quote it as "binding" in the decision to bind it to this very call'),
  paused: z.boolean().optional(),
  pauseReason: z.string().optional(),
});

/** The answer of GET /approvals. */
export const ApprovalsAnswer = z.object({
  approvals: z.array(ApprovalItem),
  truncated: z.boolean().optional().describe('More matched than were read or returned: narrow the filters'),
  dropped: z.number().int().describe('Runs visibility listed as waiting that had nothing pending when asked'),
  unanswered: z
    .number()
    .int()
    .optional()
    .describe('Runs listed as waiting whose state did not answer within 5 s (no worker polls their task queue?)'),
});

/** GET /approvals. */
export const ListApprovals = defineRoute({
  method: 'GET',
  path: '/approvals',
  summary: "The tenant's tool calls waiting for a decision, across its runs and their nested runs, oldest first",
  description:
    'Found from Temporal visibility, which is eventually consistent: a call asked a moment ago may be missing for a ' +
    'second or two, and a run listed as waiting whose call has just been decided is left out (counted in `dropped`).',
  tags: ['control'],
  auth: 'read',
  query: ApprovalsQuery,
  responses: { 200: ApprovalsAnswer },
});

export const approvalRoutes: Routes = (app, ctx) => {
  apiRoute(app, ctx.tokens, ListApprovals, async ({ caller, query }) =>
    ctx.agio.pendingApprovals({ tenant: caller.tenant, ...query }),
  );
};

/** A binding as GET /approvals shows it (decisions quote it). */
export const DecisionBinding = z.string().regex(/^[0-9a-f]{16}\.\d{1,6}$/, 'binding: as GET /approvals shows it');

/**
 * What a decision carries to be bound: the quoted binding and the caller's roles (an escalated call needs its role).
 */
export function boundTo(caller: Grant, binding: string | undefined): { binding?: string; roles?: string[] } {
  return {
    ...(binding ? { binding } : {}),
    ...(caller.roles?.size ? { roles: [...caller.roles] } : {}),
  };
}

/** A decision the run refused for its binding (409 stale_binding) or an escalated call's role (403); else returns. */
export function refusedBinding(err: unknown): void {
  if (!(err instanceof RunRefusedError) || !err.cause) return;
  if (err.type === ErrorType.StaleApproval) throw new HttpError(409, 'stale_binding', err.cause.message);
  if (err.type === ErrorType.ApprovalEscalated) throw new HttpError(403, 'forbidden', err.cause.message);
}
