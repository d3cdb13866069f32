// Callback tools of one's own: a tool whose code starts outside work (a CI job, a deploy, a person's task elsewhere)
// and hands it a callback URL; the run then waits durably, holding no activity, for the result sent there.
import type { z } from 'zod';
import type { ToolContext, ToolDefinition } from './define-tool';

/** What a callback tool's `start` receives: the tool context with its callback's URL, token and expiry. */
export type CallbackToolContext = ToolContext & { callback: NonNullable<ToolContext['callback']> };

/** A callback tool as its author writes it. */
export interface CallbackToolDefinition<S extends z.ZodType = z.ZodType> extends Omit<
  ToolDefinition<S>,
  'execute' | 'callback' | 'quick' | 'timeoutMs'
> {
  /**
   * Starts the outside work, once per call: send it `ctx.callback.url` (or complete the call yourself with
   * `AgioClient.completeCallback(ctx.callback.token, …)`), with `ctx.idempotencyKey` so a retried start is harmless.
   * Throwing retries the start (`maxAttempts`); returning `{ isError: true, content }` gives the model that error at
   * once.
   */
  start: (args: z.infer<S>, ctx: CallbackToolContext) => Promise<void | { isError: true; content: string }>;
  /** How long the run waits for the result once the work started (a timeout is a tool error the model reads). */
  waitTimeoutMs: number;
  /** Start-to-close timeout of one start (default 30 s). */
  startTimeoutMs?: number;
}

/** Default timeout of a callback tool's start. */
export const CALLBACK_START_TIMEOUT_MS = 30_000;

/** Defines a callback tool: a ToolDefinition whose `execute` is its start and whose spec tells the run to wait. */
export function defineCallbackTool<S extends z.ZodType>(def: CallbackToolDefinition<S>): ToolDefinition<S> {
  const { start, waitTimeoutMs, startTimeoutMs, ...rest } = def;
  return {
    workspace: 'none',
    idempotent: true,
    ...rest,
    timeoutMs: startTimeoutMs ?? CALLBACK_START_TIMEOUT_MS,
    callback: { timeoutMs: waitTimeoutMs },
    execute: async (args, ctx) => {
      if (!ctx.callback)
        throw new Error(`callback tool "${def.name}" was run without a callback (not by the run's wait)`);
      const out = await start(args, ctx as CallbackToolContext);
      return out ?? { content: 'started' };
    },
  };
}
