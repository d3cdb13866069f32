// An agents file's callback tool as a worker tool: its start sends the file's HTTP request (activities/callbacks/
// http-template.ts) with the call's Idempotency-Key, reads at most a little of the answer, follows no redirect, and
// tells the model when the other side refused; 5xx and network errors are retried, the key making a repeat harmless.
import type { ToolDefinition } from '../tools/define-tool';
import { jsonSchemaArguments } from '../tools/mcp/arguments';
import { CallbackToolConfig, TemplateRefusal, renderStart } from './http-template';

/** The most bytes of a start response read (its excerpt goes into the model's error). */
const MAX_RESPONSE_BYTES = 16 * 1024;
/** Characters of a refusing response the model sees. */
const EXCERPT_CHARS = 500;

/** The worker tool of an agents file's callback tool. */
export function httpCallbackTool(config: CallbackToolConfig): ToolDefinition {
  const parsed = CallbackToolConfig.parse(config);
  const { start } = parsed;
  return {
    name: parsed.name,
    description: parsed.description,
    parameters: jsonSchemaArguments(parsed.parameters),
    jsonSchema: parsed.parameters,
    // The request's own timeout, and a little for the activity around it.
    timeoutMs: start.timeoutMs + 5_000,
    maxAttempts: parsed.maxAttempts,
    idempotent: true,
    workspace: 'none',
    callback: { timeoutMs: parsed.waitTimeoutMs },
    async execute(args, ctx) {
      if (!ctx.callback) throw new Error(`callback tool "${parsed.name}" was run without a callback`);
      let request;
      try {
        request = renderStart(start, {
          args: args as Record<string, unknown>,
          callback: ctx.callback,
          toolCallId: ctx.toolCallId,
          runId: ctx.runId,
          idempotencyKey: ctx.idempotencyKey,
        });
      } catch (err) {
        if (err instanceof TemplateRefusal) return { isError: true, content: err.message };
        throw err;
      }
      const res = await fetch(request.url, {
        method: request.method,
        headers: {
          ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
          // The call's key, whatever the template says: a retried start must be recognisable as the same one.
          ...Object.fromEntries(Object.entries(request.headers).filter(([k]) => k.toLowerCase() !== 'idempotency-key')),
          'idempotency-key': ctx.idempotencyKey,
        },
        ...(request.body !== undefined ? { body: request.body } : {}),
        redirect: 'manual',
        signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(start.timeoutMs)]),
      });
      const excerpt = (await readSome(res)).slice(0, EXCERPT_CHARS);
      if (res.status >= 500) throw new Error(`the start request failed: HTTP ${res.status}`);
      if (res.status >= 300)
        return {
          isError: true,
          content: `the work was not started: its start request answered HTTP ${res.status}${res.status < 400 ? ' (redirects are not followed)' : ''}${excerpt ? `: ${excerpt}` : ''}`,
        };
      return { content: 'started' };
    },
  };
}

/** At most MAX_RESPONSE_BYTES of a response's body, as text; the rest is never read. */
async function readSome(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    while (bytes < MAX_RESPONSE_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).toString('utf8', 0, Math.min(bytes, MAX_RESPONSE_BYTES));
}
