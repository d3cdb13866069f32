// Real answers of a bridge checked against its own OpenAPI document (GET /openapi.json): each call names the
// operation's path template, and its status, content type and JSON body must be what the document says (ajv, JSON
// Schema 2020-12, the dialect OpenAPI 3.1 uses).
import Ajv2020 from 'ajv/dist/2020';
import type { JsonResponse } from './bridge';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is JSON read by key
type Doc = any;

/** One call: the operation's template (`/runs/{id}`), its values, and the request. */
export interface ApiCall {
  method?: string;
  path: string;
  params?: Record<string, string>;
  query?: Record<string, string>;
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

const pointer = (...segments: string[]) =>
  segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

/** A bridge's document and an ajv that checks answers against it. */
export class ApiDocument {
  private readonly ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
  /** Each `METHOD template status` checked so far. */
  readonly checked = new Set<string>();

  private constructor(
    readonly url: string,
    readonly doc: Doc,
  ) {
    this.ajv.addFormat('date-time', true);
    this.ajv.addSchema(doc, 'openapi');
  }

  /** Reads the document the bridge at `url` serves. */
  static async of(url: string): Promise<ApiDocument> {
    return new ApiDocument(url, await (await fetch(`${url}/openapi.json`)).json());
  }

  /** What is wrong with an answer by the document (empty when it fits). */
  problems(method: string, template: string, status: number, contentType: string, body: unknown): string[] {
    const operation = this.doc.paths[template]?.[method.toLowerCase()];
    if (!operation) return [`${method} ${template} is not in the document`];
    const response = operation.responses[String(status)];
    if (!response) return [`${method} ${template} answered ${status}, which the document does not list`];
    this.checked.add(`${method} ${template} ${status}`);
    const type = Object.keys(response.content ?? {}).find((t) => contentType.startsWith(t));
    if (response.content && !type)
      return [
        `${method} ${template} ${status}: content type ${contentType}, the document says ${Object.keys(response.content)}`,
      ];
    if (type !== 'application/json') return [];
    const ref = `openapi#/${pointer('paths', template, method.toLowerCase(), 'responses', String(status), 'content', type, 'schema')}`;
    const validate = this.ajv.getSchema(ref);
    if (!validate) return [`no schema at ${ref}`];
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) => `${method} ${template} ${status}: ${e.instancePath || 'body'} ${e.message}`,
    );
  }

  /** What is wrong with an SSE frame's data by the stream's `x-event-data` schema (empty when it fits). */
  eventProblems(template: string, data: unknown): string[] {
    const media = this.doc.paths[template]?.get?.responses['200']?.content?.['text/event-stream'];
    const ref: string | undefined = media?.['x-event-data']?.$ref;
    if (!ref) return [`GET ${template} names no x-event-data`];
    const validate = this.ajv.getSchema(`openapi${ref}`);
    if (!validate) return [`no schema at ${ref}`];
    if (validate(data)) return [];
    return (validate.errors ?? []).map((e) => `event ${e.instancePath || 'data'} ${e.message}`);
  }

  /** Sends the call and returns its JSON answer; throws when the answer does not fit the document. */
  async call(call: ApiCall): Promise<JsonResponse> {
    const method = call.method ?? (call.body === undefined ? 'GET' : 'POST');
    let path = call.path;
    for (const [name, value] of Object.entries(call.params ?? {}))
      path = path.replace(`{${name}}`, encodeURIComponent(value));
    const query = call.query ? `?${new URLSearchParams(call.query)}` : '';
    const headers: Record<string, string> = { ...call.headers };
    if (call.token) headers.authorization = `Bearer ${call.token}`;
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.url}${path}${query}`, {
      method,
      headers,
      ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
    });
    const text = await res.text();
    const contentType = res.headers.get('content-type') ?? '';
    const body: unknown = contentType.startsWith('application/json') ? JSON.parse(text) : text;
    const problems = this.problems(method, call.path, res.status, contentType, body);
    if (problems.length) throw new Error(`${problems.join('\n')}\nanswer: ${text.slice(0, 2000)}`);
    return { status: res.status, body };
  }
}
