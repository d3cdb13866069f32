// POST /runs, what it takes: the body (agent, input and the run's own settings, every one bounded) and the
// Idempotency-Key header, which names the run through an id derived from the tenant and the key.
import type { FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { MAX_TOKENS_PER_MODEL_CALL, ModelSettings, PermissionRule, RunLimitRequest, jsonBytes } from '../common';
import { HttpError } from './errors';
import { MAX_RUN_WEBHOOKS, RunWebhookRequest } from '../common/webhooks';
import { ON_ACTIVE_RUN } from '../common/session-runs';

/** Most permission rules one run may bring. */
export const MAX_RUN_PERMISSIONS = 50;
/** Largest `state` a run may bring (UTF-8 bytes of its JSON). */
export const MAX_RUN_STATE_BYTES = 64 * 1024;

/**
 * A permission rule from a caller (globs are matched in time at most glob × subject length, see globMatches: any glob
 * is safe).
 */
const RunPermissionRule = z
  .object({
    tool: z
      .string()
      .regex(/^[\x21-\x7e]{1,128}$/, '1-128 visible ASCII characters: a tool name, or a glob such as * or fs__*'),
    pattern: z.string().min(1).max(512).optional(),
    action: PermissionRule.shape.action,
    /** `ask`: expiry after 1 s to 30 days, then `onExpiry` (escalate needs `escalateTo`). */
    expiresAfterMs: z
      .number()
      .int()
      .min(1000)
      .max(30 * 24 * 3_600_000)
      .optional(),
    onExpiry: PermissionRule.shape.onExpiry,
    escalateTo: PermissionRule.shape.escalateTo,
  })
  .strict()
  .refine((r) => r.onExpiry !== 'escalate' || r.escalateTo, {
    message: 'onExpiry "escalate" needs escalateTo (a role)',
    path: ['escalateTo'],
  });

/** Model settings from a caller: the agent's settings' fields, `maxTokens` bounded. */
const RunModelSettings = ModelSettings.extend({
  maxTokens: z.number().int().positive().max(MAX_TOKENS_PER_MODEL_CALL).optional(),
}).strict();

/** The body of POST /runs; unknown fields are refused. */
export const StartRunBody = z
  .object({
    agent: z.string().min(1).max(128),
    // Its size is checked by AgioClient.start against the run's maxModelInputBytes (413 input_too_large).
    input: z.string().min(1),
    sessionId: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'sessionId: 1-128 letters, digits, . _ : -')
      .optional(),
    /**
     * With sessionId: what happens when the session has a run running that was started with this field too: reject
     * (409 session_busy naming it), enqueue, interrupt or rollback (see common/session-runs.ts). Unset: starts at once.
     */
    onActiveRun: z.enum(ON_ACTIVE_RUN).optional(),
    userId: z
      .string()
      .regex(/^[\x21-\x7e]{1,256}$/, 'userId: 1-256 visible ASCII characters')
      .optional(),
    /** This run's limits over the agent's (maxSteps, maxTotalTokens, modelRetryWindowMs…), each bounded. */
    limits: RunLimitRequest.optional(),
    /**
     * Rules checked before the agent's own; `allow` only where the bridge allows overrides (see {@link
     * refuseAllowRules}).
     */
    permissions: z.array(RunPermissionRule).max(MAX_RUN_PERMISSIONS).optional(),
    /** Merged over the agent's model settings (every LLM sub-agent's for a workflow agent). */
    modelSettings: RunModelSettings.optional(),
    /** Webhooks of this run's tree only, answered with their secrets (see POST /webhooks). */
    webhooks: z.array(RunWebhookRequest).min(1).max(MAX_RUN_WEBHOOKS).optional(),
    /** Values for `{key}` placeholders in instructions (a workflow agent's shared state). */
    state: z
      .record(z.string().min(1).max(128), z.unknown())
      .refine((s) => jsonBytes(s) <= MAX_RUN_STATE_BYTES, `at most ${MAX_RUN_STATE_BYTES} bytes of JSON`)
      .optional(),
  })
  .strict()
  .refine((b) => !b.onActiveRun || b.sessionId, { message: 'onActiveRun needs a sessionId', path: ['onActiveRun'] });
/** The body of POST /runs. */
export type StartRunBody = z.infer<typeof StartRunBody>;

/**
 * Refuses `allow` rules (400) unless the bridge allows overrides: a run's rules are checked before the agent's own,
 * so an `allow` from a caller would skip an approval the agent's author required. `deny` and `ask` only tighten.
 */
export function refuseAllowRules(rules: PermissionRule[] | undefined, allowPermissionOverrides: boolean): void {
  if (allowPermissionOverrides) return;
  const i = rules?.findIndex((r) => r.action === 'allow') ?? -1;
  if (i < 0) return;
  throw new HttpError(
    400,
    'permission_override_refused',
    `permissions.${i}: this bridge accepts only "deny" and "ask" rules per run; an "allow" rule would skip approvals the agent requires. ` +
      'An operator can accept them by creating the bridge with allowPermissionOverrides: true',
  );
}

/** Visible ASCII, 1-255 characters (what the Idempotency-Key header may hold). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The request's Idempotency-Key, if any; 400 when it is malformed (or sent twice). */
export function idempotencyKeyOf(req: FastifyRequest): string | undefined {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key)) {
    throw new HttpError(
      400,
      'invalid_request',
      'Idempotency-Key: send one key of 1-255 visible ASCII characters (no spaces), e.g. a UUID',
    );
  }
  return key;
}

/**
 * The run id an idempotency key names for a tenant: `run-` and 32 hex digits of a hash of both. Two tenants' keys never
 * meet, and no key of one tenant names another tenant's run.
 */
export function runIdForKey(tenant: string, key: string): string {
  return `run-${createHash('sha256')
    .update(JSON.stringify(['agio-idempotency-key', tenant, key]))
    .digest('hex')
    .slice(0, 32)}`;
}
