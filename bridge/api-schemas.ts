// The bridge's answers as zod schemas, for the API document (bridge/openapi.ts) and the tests that check real answers
// against it. Top-level fields are listed exactly (an unlisted one fails the response tests); what runs and stores hold
// (outputs, usage, states, sessions, traces) is open to new fields.
import { z } from 'zod';
import { RUN_STATUSES } from '../common/run-statuses';
import { SCOPES } from './auth';

/**
 * Every error: `{ error: { code, message, …details } }` (bridge/errors.ts); details such as `scope`, `limit`, `quota`.
 */
export const ApiErrorBody = z.object({
  error: z
    .object({
      code: z.string().describe('Stable, e.g. invalid_request, unauthorized, forbidden, run_not_found, quota_exceeded'),
      message: z.string(),
    })
    .catchall(z.unknown()),
});

/** Open JSON object (what a run or a store holds). */
const Open = z.object({}).catchall(z.unknown());
const RunStatusName = z.enum(RUN_STATUSES);
const Timestamp = z.string().describe('ISO 8601 date-time');

/** The worker deployment version a run is on (versioned workers only). */
const RunVersionAnswer = z
  .object({
    deploymentName: z.string(),
    buildId: z.string(),
    behavior: z.enum(['pinned', 'auto_upgrade']),
    override: z.string().optional(),
  })
  .catchall(z.unknown());

/** POST /runs. */
export const StartRunAnswer = z.object({
  runId: z.string(),
  links: z.object({ self: z.string(), events: z.string() }),
  /** The webhooks the request asked for: each secret only in the answer that created it. */
  webhooks: z
    .array(z.object({ id: z.string(), url: z.string(), events: z.array(z.string()), secret: z.string().optional() }))
    .optional(),
});

/** A retry's or fork's origin (common/run-origin.ts). */
const Lineage = {
  retriedFrom: z.string().optional().describe('A retry: the run it continues from its last completed step'),
  forkedFrom: z.string().optional().describe('A fork: the run it was forked from, at `step`'),
  step: z.number().int().optional().describe("A fork: the source run's step it starts at"),
};

/** GET /runs: a page of the tenant's root runs, newest first. */
export const RunPageAnswer = z.object({
  runs: z.array(
    z.object({
      runId: z.string(),
      agent: z.string().optional(),
      status: RunStatusName,
      startTime: Timestamp,
      closeTime: Timestamp.optional(),
      scheduleId: z.string().optional().describe('The schedule that started the run'),
      ...Lineage,
    }),
  ),
  nextPageToken: z.string().optional(),
});

const Cost = z.object({
  usd: z.number().optional(),
  unknownPrice: z.literal(true).optional(),
  treeSpentUsd: z.number().optional(),
});

/** GET /runs/:id: status, and output or error once finished. */
export const RunStatusAnswer = z.object({
  runId: z.string(),
  agent: z.string().optional(),
  status: RunStatusName,
  startTime: Timestamp,
  closeTime: Timestamp.optional(),
  rootRunId: z.string().optional(),
  scheduleId: z.string().optional().describe('The schedule that started the run'),
  version: RunVersionAnswer.optional(),
  modelUnavailable: Open.optional(),
  cost: Cost.optional(),
  output: Open.optional().describe('RunOutput: response, output, usage, metrics…'),
  error: z.object({ type: z.string().optional(), message: z.string() }).optional(),
  ...Lineage,
  rescues: z
    .array(z.object({ runId: z.string(), ...Lineage }))
    .optional()
    .describe('The retries and forks made from this run, oldest first'),
});

/** What pause and resume answer once the run is parked (the run's control state). */
export const ControlStateAnswer = z
  .object({
    paused: z.boolean(),
    parked: z.boolean(),
    pausedBy: z.string().optional(),
    pauseReason: z.string().optional(),
    finished: z.boolean().optional(),
    budget: Open.optional(),
  })
  .catchall(z.unknown());

/** GET /runs/:id/state: the live state (RunState with cost, version and a model outage). */
export const RunStateAnswer = ControlStateAnswer.extend({
  runId: z.string(),
  agent: z.string(),
  kind: z.enum(['llm', 'loop', 'sequential', 'parallel']),
  status: z.enum(['running', 'completed', 'failed', 'cancelled']),
  children: z.array(z.string()),
  pendingApprovals: z.array(
    z.object({ toolCallId: z.string(), tool: z.string(), workflowId: z.string() }).catchall(z.unknown()),
  ),
  pendingCallbacks: z
    .array(
      z.object({
        toolCallId: z.string(),
        tool: z.string(),
        workflowId: z.string(),
        callbackId: z.string(),
        expiresAt: z.number().describe('When the wait ends with a tool error (epoch ms)'),
      }),
    )
    .optional()
    .describe('Callback tool calls waiting for their outside result'),
  cost: Cost.optional(),
});

/** 202 of pause/resume: the run has not parked within the bridge's wait. */
export const ControlPendingAnswer = z.object({
  paused: z.boolean(),
  parked: z.literal(false),
  pending: z.literal(true),
});

/** POST /runs/:id/tool-calls/:callId/approve|deny. */
export const DecisionAnswer = z.object({ toolCallId: z.string(), decision: z.enum(['approve', 'deny']) });

/** POST /runs/:id/cancel. */
export const CancelAnswer = z.object({ runId: z.string(), cancelRequested: z.literal(true) });

/** POST /runs/:id/stream-token. */
export const StreamTokenAnswer = z.object({
  token: z.string(),
  expiresAt: Timestamp,
  events: z.string().describe('The events URL with ?access_token=, for an EventSource'),
});

/** GET /agents. */
export const AgentsAnswer = z.object({
  source: z.string().optional().describe('The agents file by its name'),
  agents: z.array(Open.extend({ name: z.string(), kind: z.string() })),
});

/** GET /whoami. */
export const WhoamiAnswer = z.object({
  tenant: z.string(),
  identity: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  roles: z.array(z.string()).optional().describe('Roles (approvals escalated to one are decided only by its tokens)'),
});

/** GET /healthz. */
export const HealthAnswer = z.object({
  ok: z.boolean(),
  streams: Open.optional().describe('With a token: stream counters'),
});

/** GET /sessions/:id. */
export const SessionAnswer = Open.extend({
  steps: z.array(z.object({ runId: z.string(), steps: z.array(Open) })),
});

/** GET /runs/:id/trace. */
export const TraceAnswer = Open;

/** GET /runs/:id/citations. */
export const CitationsAnswer = z.object({ runId: z.string(), citations: z.array(Open) });

/** POST /runs/:id/budget. */
export const RunBudgetAnswer = z.object({ runId: z.string(), maxCostUsd: z.number() });

/** GET /tenants/:tenant/budget. */
export const TenantBudgetAnswer = z.object({
  tenant: z.string(),
  day: z.string(),
  spentUsd: z.number(),
  dailyUsd: z.number().optional(),
});

/** POST /tenants/:tenant/budget. */
export const TenantBudgetSetAnswer = z.object({
  tenant: z.string(),
  dailyUsd: z.number().optional(),
  nudgedRuns: z.number().int(),
});

/** Temporal's codec protocol: payloads as proto JSON (base64 metadata values and data). */
export const CodecPayloads = z.object({
  payloads: z.array(z.object({ metadata: z.record(z.string(), z.string()), data: z.string() })),
});

/** POST /codec/links. */
export const CodecLinkAnswer = z.object({ endpoint: z.string(), expiresAt: Timestamp });
