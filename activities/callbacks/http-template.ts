// A callback tool declared in an agents file (`callbackTools:`): the HTTP request that starts the outside work, with
// placeholders for the model's arguments and the callback URL. The file's author (an operator) fixes the method, the
// URL's scheme, host and port, and the header names; the model's arguments only fill values, encoded for where they go.
import { z } from 'zod';

/**
 * A placeholder: `{{args.<name>}}`, `{{callback.url}}`, `{{callback.token}}`, `{{callback.expiresAt}}`,
 * `{{toolCallId}}`, `{{runId}}`, `{{idempotencyKey}}`.
 */
export const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;
const NAMES = /^(args\.[A-Za-z0-9_-]+|callback\.(url|token|expiresAt)|toolCallId|runId|idempotencyKey)$/;

/** The request that starts the work. */
export const HttpStartTemplate = z
  .object({
    method: z.enum(['POST', 'PUT', 'PATCH']).default('POST'),
    /** Placeholders only after the host (in the path or query), each value percent-encoded. */
    url: z.string().url(),
    /** Fixed names; values may hold placeholders (a value with a line break or control character is refused). */
    headers: z.record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'not a header name'), z.string()).default({}),
    /** JSON: a string that is one placeholder becomes its value (any JSON); one that holds placeholders, text. */
    body: z.unknown().optional(),
    /** How long the request may take (default 30 s). */
    timeoutMs: z.number().int().positive().max(300_000).default(30_000),
  })
  .strict()
  .superRefine((t, ctx) => {
    const hostEnd = t.url.indexOf('/', t.url.indexOf('://') + 3);
    const firstPlaceholder = t.url.search(/\{\{/);
    if (firstPlaceholder >= 0 && (hostEnd < 0 || firstPlaceholder < hostEnd))
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message: 'placeholders may stand only after the host (in the path or query)',
      });
    if (!/^https?:$/.test(protocolOf(t.url.replace(PLACEHOLDER, 'x'))))
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'the start URL must be an http or https URL' });
    for (const [where, text] of strings(t))
      for (const [, name] of text.matchAll(PLACEHOLDER))
        if (!NAMES.test(name))
          ctx.addIssue({ code: 'custom', path: where, message: `unknown placeholder {{${name}}}` });
  });
/** The request that starts the work. */
export type HttpStartTemplate = z.infer<typeof HttpStartTemplate>;

/** A callback tool in an agents file. */
export const CallbackToolConfig = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'tool names are 1-64 letters, digits, _ or -'),
    description: z.string().min(1),
    /** JSON Schema of the arguments (default: none). */
    parameters: z.record(z.string(), z.unknown()).default({ type: 'object', properties: {} }),
    /** How long the run waits for the result once the request succeeded. */
    waitTimeoutMs: z.number().int().positive(),
    /** Attempts of the start request (5xx and network errors are retried with the same Idempotency-Key; default 3). */
    maxAttempts: z.number().int().positive().max(10).default(3),
    start: HttpStartTemplate,
  })
  .strict();
/** A callback tool in an agents file. */
export type CallbackToolConfig = z.infer<typeof CallbackToolConfig>;

/** What placeholders are filled with. */
export interface TemplateValues {
  args: Record<string, unknown>;
  callback: { url: string; token: string; expiresAt: number };
  toolCallId: string;
  runId: string;
  idempotencyKey: string;
}

/** A rendered start request. */
export interface RenderedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** A template that cannot be filled with these arguments (the model hears why; nothing is sent). */
export class TemplateRefusal extends Error {
  override name = 'TemplateRefusal';
}

/** Fills the template: URL values percent-encoded (and the origin checked), header values checked, the body as JSON. */
export function renderStart(template: HttpStartTemplate, values: TemplateValues): RenderedRequest {
  const url = template.url.replace(PLACEHOLDER, (_, name: string) => {
    const text = asText(valueOf(name, values));
    if (text === '.' || text === '..') throw new TemplateRefusal(`{{${name}}} may not be "${text}" in the URL`);
    return encodeURIComponent(text);
  });
  const origin = new URL(template.url.replace(PLACEHOLDER, 'x')).origin;
  if (new URL(url).origin !== origin) throw new TemplateRefusal("the arguments would change the start URL's host");
  const headers: Record<string, string> = {};
  for (const [name, raw] of Object.entries(template.headers)) {
    const value = raw.replace(PLACEHOLDER, (_, p: string) => asText(valueOf(p, values)));
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value))
      throw new TemplateRefusal(`the value of header "${name}" would hold a line break or control character`);
    headers[name] = value;
  }
  const body = template.body === undefined ? undefined : JSON.stringify(fillJson(template.body, values));
  return { method: template.method, url, headers, ...(body !== undefined ? { body } : {}) };
}

function fillJson(node: unknown, values: TemplateValues): unknown {
  if (typeof node === 'string') {
    const whole = /^\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}$/.exec(node);
    if (whole) return valueOf(whole[1], values) ?? null;
    return node.replace(PLACEHOLDER, (_, name: string) => asText(valueOf(name, values)));
  }
  if (Array.isArray(node)) return node.map((n) => fillJson(n, values));
  if (node && typeof node === 'object')
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, fillJson(v, values)]));
  return node;
}

function protocolOf(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '';
  }
}

function valueOf(name: string, values: TemplateValues): unknown {
  if (name.startsWith('args.')) return values.args[name.slice(5)];
  if (name.startsWith('callback.')) return values.callback[name.slice(9) as keyof TemplateValues['callback']];
  return values[name as 'toolCallId' | 'runId' | 'idempotencyKey'];
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Every string of the template with its path (for the placeholder check). */
function strings(t: { url: string; headers: Record<string, string>; body?: unknown }): [(string | number)[], string][] {
  const out: [(string | number)[], string][] = [[['url'], t.url]];
  for (const [k, v] of Object.entries(t.headers)) out.push([['headers', k], v]);
  const walk = (node: unknown, at: (string | number)[]): void => {
    if (typeof node === 'string') out.push([at, node]);
    else if (Array.isArray(node)) node.forEach((n, i) => walk(n, [...at, i]));
    else if (node && typeof node === 'object') Object.entries(node).forEach(([k, v]) => walk(v, [...at, k]));
  };
  walk(t.body, ['body']);
  return out;
}
