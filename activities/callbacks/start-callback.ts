// The startCallbackTool activity: mints the call's signed callback token and URL and runs the callback tool's start
// (its own code, or an agents file's HTTP request), once per call; the run then waits for the result in workflow code.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { z } from 'zod';
import type { StartCallbackInput, StartCallbackOutput } from '../../common';
import type { ToolRegistry } from '../tools/registry';
import { CallbackTokens, callbackUrl } from '../../platform/callback-tokens';

/** What a worker needs to hand out callback URLs: the secret its bridges share, and where they are reached. */
export interface CallbackOptions {
  /** Shared by every worker and bridge of the fleet (AGIO_CALLBACK_SECRET, at least 16 bytes). */
  secret: string;
  /** The bridges' public base URL (AGIO_CALLBACK_BASE_URL), or a function that knows it once a bridge listens. */
  baseUrl: string | (() => string | undefined);
}

/** Error type of a start on a worker without callback options (not retried). */
export const CALLBACKS_NOT_CONFIGURED = 'CallbacksNotConfigured';

/** Builds startCallbackTool over the worker's tools. */
export function createCallbackActivities(registry: ToolRegistry, opts?: CallbackOptions) {
  const tokens = opts && new CallbackTokens(opts.secret);

  async function startCallbackTool(input: StartCallbackInput): Promise<StartCallbackOutput> {
    const ctx = Context.current();
    const tool = registry.find(input.name);
    if (!tool?.callback) return { started: false, content: `Error: "${input.name}" is not a callback tool here` };
    if (!tokens || !opts)
      throw ApplicationFailure.create({
        type: CALLBACKS_NOT_CONFIGURED,
        nonRetryable: true,
        message: 'this worker hands out no callback URLs: give it a callback secret (AGIO_CALLBACK_SECRET)',
      });
    const base = typeof opts.baseUrl === 'function' ? opts.baseUrl() : opts.baseUrl;
    if (!base) throw new Error('the bridge URL callbacks go to is not known yet (AGIO_CALLBACK_BASE_URL)');
    let raw: unknown;
    try {
      raw = input.arguments.trim() === '' ? {} : JSON.parse(input.arguments);
    } catch (err) {
      return notStarted(`arguments for "${input.name}" are not valid JSON (${(err as Error).message})`);
    }
    const parsed = tool.parameters.safeParse(raw);
    if (!parsed.success) return notStarted(`invalid arguments for "${input.name}":\n${z.prettifyError(parsed.error)}`);
    const token = tokens.mint({ w: input.workflowId, c: input.callbackId, t: input.tenant, e: input.expiresAt });
    const out = await tool.execute(parsed.data, {
      workspace: '',
      signal: ctx.cancellationSignal,
      heartbeat: (details?: unknown) => ctx.heartbeat(details),
      idempotencyKey: `${input.stepId}:${input.toolCallId}`,
      runId: input.runId,
      toolCallId: input.toolCallId,
      tenant: input.tenant,
      callback: { url: callbackUrl(base, token), token, expiresAt: input.expiresAt },
    });
    if (typeof out === 'object' && out.isError) return notStarted(out.content);
    return { started: true };
  }

  return { startCallbackTool };
}

function notStarted(message: string): StartCallbackOutput {
  return { started: false, content: `Error: ${message}` };
}
