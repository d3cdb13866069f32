// Callback tools (docs/ARCHITECTURE.md, "Callback tools"): a tool that starts outside work and waits durably for its
// result, delivered to a signed, single-use URL or through the client. The contract between the run, its start
// activity, the client and the bridge.
import { z } from 'zod';

/** How long a callback tool waits for its result after it started the outside work (ToolSpec.callback). */
export const CallbackWait = z.object({
  /** Milliseconds from the start of the call until the wait ends with a tool error (and its URL stops working). */
  timeoutMs: z.number().int().positive(),
  /**
   * A client tool (a frontend's, e.g. AG-UI's RunAgentInput.tools): nothing is started; the run announces the call
   * (TOOL_CALLBACK_WAITING) and waits for the client's result (RunHandle.completeCallback). Patch `agio-client-tools`.
   */
  client: z.literal(true).optional(),
});
/** How long a callback tool waits. */
export type CallbackWait = z.infer<typeof CallbackWait>;

/** The most characters of an error a callback may report. */
export const MAX_CALLBACK_ERROR_CHARS = 4000;

/** What the outside work sends back: a result (any JSON; a string is given to the model as it is) or an error. */
export const CallbackResult = z
  .object({
    result: z.unknown().optional(),
    error: z.string().min(1).max(MAX_CALLBACK_ERROR_CHARS).optional(),
  })
  .strict()
  .refine((r) => r.result !== undefined || r.error !== undefined, 'send {"result": …} or {"error": "…"}')
  .refine((r) => r.result === undefined || r.error === undefined, 'send either "result" or "error", not both');
/** What the outside work sends back. */
export type CallbackResult = z.infer<typeof CallbackResult>;

/** A callback's result as the run receives it: which wait (by the workflow's callback id), for which tenant. */
export interface CallbackCompletion {
  /** The waiting call's callback id (what its token and TOOL_CALLBACK_WAITING name). */
  callbackId: string;
  /**
   * The tenant the token names: a completion for another tenant finds no callback (absent: a client by tool call id).
   */
  tenant?: string;
  result?: unknown;
  error?: string;
  /**
   * How it arrived: the signed URL, or a client; `client_tool`: a protocol adapter answering for the run's client,
   * which may complete only a client tool's call (CallbackWait.client), never a callback tool's outside work.
   */
  via: 'url' | 'client' | 'client_tool';
}

/** The run's answer to an accepted completion. */
export interface CallbackAck {
  toolCallId: string;
  tool: string;
  completed: true;
}

/** A waiting callback as the state query lists it. */
export interface PendingCallback {
  toolCallId: string;
  tool: string;
  workflowId: string;
  callbackId: string;
  /** When the wait ends with a tool error (epoch ms). */
  expiresAt: number;
}

/** Input of the startCallbackTool activity: the call, and when its wait (and its token) expires. */
export interface StartCallbackInput {
  runId: string;
  /** The workflow the callback goes to (the run's own workflow id). */
  workflowId: string;
  toolCallId: string;
  callbackId: string;
  tenant: string;
  stepId: string;
  name: string;
  /** The raw JSON text the model produced. */
  arguments: string;
  /** Epoch ms: the token is refused from then on. */
  expiresAt: number;
}

/** What startCallbackTool reports: started (the run waits), or why not (the model sees the message). */
export type StartCallbackOutput = { started: true } | { started: false; content: string };

/** The claims a callback token carries (signed by workers, checked by bridges: activities/callbacks/). */
export interface CallbackClaims {
  /** Workflow id of the run that waits. */
  w: string;
  /** Its callback id. */
  c: string;
  /** Tenant. */
  t: string;
  /** Expiry, epoch ms. */
  e: number;
}

/** Version prefix of the callback token format (`cb1.<claims>.<signature>`). */
export const CALLBACK_TOKEN_VERSION = 'cb1';

/**
 * The claims of a callback token, read without checking its signature: for a client, which talks to Temporal itself
 * (bridges check the signature first, platform/callback-tokens.ts). Undefined when it is not a token.
 */
export function decodeCallbackClaims(token: string): CallbackClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== CALLBACK_TOKEN_VERSION || !/^[A-Za-z0-9_-]+$/.test(parts[1])) return undefined;
  try {
    const base64 = parts[1].replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4)), (ch) => ch.charCodeAt(0));
    const c = JSON.parse(new TextDecoder().decode(bytes)) as Partial<CallbackClaims>;
    if (typeof c.w !== 'string' || typeof c.c !== 'string' || typeof c.t !== 'string' || typeof c.e !== 'number')
      return undefined;
    return { w: c.w, c: c.c, t: c.t, e: c.e };
  } catch {
    return undefined;
  }
}
