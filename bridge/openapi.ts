// The OpenAPI 3.1 document of a bridge, built from the ApiRoute declarations its routes were registered with
// (bridge/api-route.ts): request schemas as the routes parse them (zod's input side), responses as they answer.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { API_ROUTE_CONFIG, type ApiAuth, type ApiResponse, type ApiRoute } from './api-route';
import { ApiErrorBody } from './api-schemas';

type Json = Record<string, unknown>;

/** A route Fastify registered, with its declaration when it has one. */
export interface RegisteredRoute {
  method: string;
  url: string;
  api?: ApiRoute;
}

/** Every route an app registers (from its onRoute hook, added before any route), described or not. */
export class RouteCatalog {
  private readonly options: { method: string | string[]; url: string; config?: unknown }[] = [];

  /** Starts listening to the app's routes; call before any route is registered. */
  constructor(app: FastifyInstance) {
    // Kept whole and read later: a plugin's own onRoute hook (the viewer's) may add the declaration after this one ran.
    app.addHook('onRoute', (route) => void this.options.push(route));
  }

  /** Each method of each route, with its declaration. */
  get routes(): RegisteredRoute[] {
    return this.options.flatMap((route) => {
      const api = (route.config as Record<string, unknown> | undefined)?.[API_ROUTE_CONFIG] as ApiRoute | undefined;
      return [route.method].flat().map((method) => ({ method, url: route.url, ...(api ? { api } : {}) }));
    });
  }

  /** The declarations of the described routes, each once. */
  described(): ApiRoute[] {
    return [...new Set(this.routes.flatMap((r) => (r.api ? [r.api] : [])))];
  }

  /** `METHOD /path` of each route without a declaration (HEAD routes Fastify adds beside a GET are not counted). */
  undescribed(): string[] {
    const gets = new Set(this.routes.filter((r) => r.method === 'GET').map((r) => r.url));
    return (
      this.routes
        // @fastify/cors answers every preflight with its own OPTIONS * route.
        .filter(
          (r) => !r.api && !(r.method === 'HEAD' && gets.has(r.url)) && !(r.method === 'OPTIONS' && r.url === '*'),
        )
        .map((r) => `${r.method} ${r.url}`)
    );
  }
}

/** Fastify's path to OpenAPI's: /runs/:id → /runs/{id}, a trailing * → {path}. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{path}');

const operationIdOf = (route: ApiRoute): string =>
  route.operationId ??
  route.method.toLowerCase() +
    openApiPath(route.path)
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean)
      .map((w) => w[0].toUpperCase() + w.slice(1))
      .join('');

/** Turns zod schemas into JSON Schema 2020-12, moving each one's $defs into components.schemas (deduplicated). */
class SchemaSet {
  readonly components: Record<string, Json> = { Error: this.convert(ApiErrorBody, 'output') };

  convert(schema: z.ZodType, io: 'input' | 'output'): Json {
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    delete json.$defs;
    const names = new Map<string, string>();
    for (const [name, def] of Object.entries(defs)) names.set(name, this.place(name, def));
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (!node || typeof node !== 'object') return node;
      const out: Json = {};
      for (const [k, v] of Object.entries(node)) {
        const local = k === '$ref' && typeof v === 'string' && /^#\/\$defs\/(.+)$/.exec(v);
        out[k] = local ? `#/components/schemas/${names.get(local[1]) ?? local[1]}` : rewrite(v);
      }
      return out;
    };
    for (const name of names.values()) this.components[name] = rewrite(this.components[name]) as Json;
    return rewrite(json) as Json;
  }

  /** A schema placed in components.schemas under `name`; its $ref. */
  named(name: string, schema: z.ZodType): Json {
    this.components[name] ??= this.convert(schema, 'output');
    return { $ref: `#/components/schemas/${name}` };
  }

  /** A component's name: its own, or the same schema's earlier name, or a fresh one. */
  private place(name: string, def: Json): string {
    const text = JSON.stringify(def);
    const same = Object.entries(this.components).find(([, c]) => JSON.stringify(c) === text);
    if (same) return same[0];
    let unique = name.replace(/^__schema/, 'Schema');
    for (let i = 2; this.components[unique]; i++) unique = `${name.replace(/^__schema/, 'Schema')}_${i}`;
    this.components[unique] = def;
    return unique;
  }
}

const ERROR_REF = { $ref: '#/components/schemas/Error' };

function responseObject(response: ApiResponse, schemas: SchemaSet): Json {
  if (typeof response === 'string')
    return { description: response, content: { 'application/json': { schema: ERROR_REF } } };
  if (response instanceof z.ZodType)
    return { description: 'OK', content: { 'application/json': { schema: schemas.convert(response, 'output') } } };
  const headers = Object.fromEntries(
    Object.entries(response.headers ?? {}).map(([name, description]) => [
      name,
      { description, schema: { type: 'string' } },
    ]),
  );
  const type = response.contentType ?? 'application/json';
  const schema = response.schema
    ? response.schema === ApiErrorBody
      ? ERROR_REF
      : schemas.convert(response.schema, 'output')
    : type.startsWith('text/')
      ? { type: 'string' }
      : undefined;
  const eventData = response.eventData
    ? { 'x-event-data': schemas.named(response.eventData.name, response.eventData.schema) }
    : {};
  return {
    description: response.description,
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(schema ? { content: { [type]: { schema, ...eventData } } } : {}),
  };
}

function securityOf(auth: ApiAuth): Json[] {
  if (auth === 'public') return [];
  if (auth === 'token') return [{ bearer: [] }];
  if (typeof auth === 'string') return [{ bearer: [auth] }];
  const bearer = auth.scope ? [{ bearer: auth.scope === 'token' ? [] : [auth.scope] }] : [];
  return [...(auth.optional ? [{}] : []), ...bearer, ...(auth.streamToken ? [{ streamToken: [] }] : [])];
}

function parametersOf(route: ApiRoute, schemas: SchemaSet): Json[] {
  const out: Json[] = [];
  const add = (where: 'path' | 'query', schema: z.ZodType | undefined) => {
    if (!schema) return;
    const json = schemas.convert(schema, 'input');
    const required = new Set((json.required as string[] | undefined) ?? []);
    for (const [name, prop] of Object.entries((json.properties ?? {}) as Record<string, Json>)) {
      const { description, ...rest } = prop;
      out.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        schema: rest,
        ...(description ? { description } : {}),
      });
    }
  };
  add('path', route.params);
  add('query', route.query);
  // Every {name} of the path is a parameter, declared or not (a wildcard, a segment the route reads itself).
  for (const [, name] of openApiPath(route.path).matchAll(/\{([^}]+)\}/g))
    if (!out.some((p) => p.in === 'path' && p.name === name))
      out.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  for (const [name, header] of Object.entries(route.headers ?? {}))
    out.push({
      name,
      in: 'header',
      required: header.required ?? false,
      description: header.description,
      schema: header.schema ? schemas.convert(header.schema, 'input') : { type: 'string' },
    });
  return out;
}

/** A JSON body; required when it has required fields (a body left out is parsed as `{}`). */
function requestBodyOf(body: z.ZodType, schemas: SchemaSet): Json {
  const schema = schemas.convert(body, 'input');
  const required = Array.isArray(schema.required) && schema.required.length > 0;
  return { required, content: { 'application/json': { schema } } };
}

function operationOf(route: ApiRoute, schemas: SchemaSet): Json {
  const responses: Record<string, Json> = {};
  for (const [status, response] of Object.entries(route.responses))
    responses[status] = responseObject(response, schemas);
  const error = (status: number, description: string) => (responses[status] ??= responseObject(description, schemas));
  if (route.params || route.query || route.body) error(400, 'invalid_request: a parameter or the body is malformed');
  if (route.auth !== 'public' && !(typeof route.auth === 'object' && !route.auth.scope))
    error(401, 'unauthorized: no bearer token, or an unknown one');
  const named =
    typeof route.auth === 'string' ? route.auth : typeof route.auth === 'object' ? route.auth.scope : undefined;
  const scope = named === 'token' || named === 'public' ? undefined : named;
  if (scope) error(403, `forbidden: the token lacks the "${scope}" scope`);
  if (route.body) error(413, 'body_too_large or input_too_large');
  error(500, 'internal: see the bridge log');
  error(
    503,
    'temporal_unavailable: Temporal (or the worker a read needs) did not answer in time; retry after Retry-After',
  );
  const note = typeof route.auth === 'object' ? `\n\nAuth: ${route.auth.note}` : '';
  return {
    operationId: operationIdOf(route),
    summary: route.summary,
    ...(route.description || note ? { description: `${route.description ?? ''}${note}`.trim() } : {}),
    tags: route.tags,
    security: securityOf(route.auth),
    ...(scope ? { 'x-agio-scope': scope } : {}),
    ...(parametersOf(route, schemas).length ? { parameters: parametersOf(route, schemas) } : {}),
    ...(route.body ? { requestBody: requestBodyOf(route.body, schemas) } : {}),
    responses,
  };
}

/** What each group of operations is for (the document's `tags`; a group not named here is listed without one). */
const TAG_DESCRIPTIONS: Record<string, string> = {
  runs: 'Start runs, list them, read their status, output and live state',
  streams: "A run's events as Server-Sent Events, and stream tokens for browsers",
  control: 'Steer runs: pause, resume, cancel, decide tool calls, messages, the approvals inbox',
  callbacks: 'Results of callback tools, sent to their signed URLs',
  schedules: 'Runs on cron or interval schedules (Temporal Schedules)',
  webhooks: 'Signed notifications of run and approval events, and their delivery log',
  budgets: 'Cost budgets of run trees and tenants',
  bulk: 'Re-drive runs in bulk: pause, resume, cancel or retry every run a filter matches, with a dry run and a report',
  records: 'What the stores recorded: sessions, traces, citations',
  'ag-ui': 'Every agent as an AG-UI 1.0 agent: RunAgentInput in, an AG-UI event stream out; approvals as interrupts',
  mcp: 'Agio as an MCP server (Streamable HTTP, stateless): agents as tools; with Tasks, task id = run id',
  a2a: 'Every agent as an A2A v1.0 agent: its agent card and JSON-RPC endpoint; tasks are runs',
  codec: "Temporal's codec server protocol, for the Web UI and CLI",
  operations: 'Health, metrics, the token, this document',
  viewer: 'The run viewer (a browser app over this API)',
};

/** The OpenAPI 3.1 document of these routes (hidden ones left out), sorted by path then method. */
export function openApiDocument(routes: ApiRoute[], version: string): Json {
  const schemas = new SchemaSet();
  const paths: Record<string, Record<string, Json>> = {};
  const order = ['get', 'post', 'put', 'patch', 'delete', 'options'];
  const shown = routes
    .filter((r) => !r.hidden)
    .sort(
      (a, b) =>
        a.path.localeCompare(b.path) || order.indexOf(a.method.toLowerCase()) - order.indexOf(b.method.toLowerCase()),
    );
  for (const route of shown)
    (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = operationOf(route, schemas);
  return {
    openapi: '3.1.1',
    info: {
      title: 'Agio HTTP API',
      version,
      description:
        'Start, watch and steer durable agent runs. Every run route is scoped to the tenant of the bearer token; errors are `{ error: { code, message, … } }`.',
    },
    tags: [...new Set([...Object.keys(TAG_DESCRIPTIONS), ...shown.flatMap((r) => r.tags)])]
      .filter((name) => shown.some((r) => r.tags.includes(name)))
      .map((name) => ({
        name,
        ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}),
      })),
    paths,
    components: {
      schemas: schemas.components,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A token of AGIO_TOKENS (`token:tenant[:identity[:scope+scope…]]`); operations name the scope they need.',
        },
        streamToken: {
          type: 'apiKey',
          in: 'query',
          name: 'access_token',
          description: 'A run-scoped stream token from POST /runs/{id}/stream-token (GET /runs/{id}/events only).',
        },
      },
    },
  };
}
