// The seam between a route and the API document: a route declares its method, path, scope, params, query, body and
// responses once (an ApiRoute), and apiRoute() registers it on Fastify checking that very scope and parsing with those
// very schemas, so GET /openapi.json (bridge/openapi.ts) describes exactly what the route validates.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { z } from 'zod';
import { callerOf, type Grant, type Scope, type TokenTable } from './auth';

/** HTTP methods a described route may answer. */
export type ApiMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/**
 * Who may call a route: a scope the bridge checks before reading anything else (401 without a known bearer token, 403
 * without the scope), `token` (any known bearer token), `public` (no token), or a route's own rule: `check` runs first
 * (and may return the caller), `note` says the rule in the document, `scope` names the scope it asks of a bearer token
 * (`token`: any known one), `optional` says the route also answers without one and `streamToken` that it also takes a
 * run's stream token in ?access_token=.
 */
export type ApiAuth =
  | Scope
  | 'token'
  | 'public'
  | {
      note: string;
      scope?: Scope | 'token';
      optional?: boolean;
      streamToken?: boolean;
      check?: (req: FastifyRequest) => Grant | undefined;
    };

/**
 * One response: a JSON body's schema; a string, an error (`{ error: { code, message } }`, see bridge/errors.ts) with
 * that description; or a body of another content type (text/event-stream, text/plain, text/html) or none. An SSE
 * response names the schema of its frames' `data` as `eventData` (the document's `x-event-data`, a component).
 */
export type ApiResponse =
  | z.ZodType
  | string
  | {
      description: string;
      schema?: z.ZodType;
      contentType?: string;
      headers?: Record<string, string>;
      eventData?: { name: string; schema: z.ZodType };
    };

/** A request header a route reads (documented; the route reads it itself). */
export interface ApiHeader {
  description: string;
  schema?: z.ZodType;
  required?: boolean;
}

/** A route as the API document shows it and as apiRoute() registers it. */
export interface ApiRoute<
  P extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: ApiMethod;
  /** Fastify's form: /runs/:id/pause. */
  path: string;
  summary: string;
  description?: string;
  /** The document's groups (runs, control, streams, records, budgets, codec, operations…). */
  tags: string[];
  /** Unique; derived from method and path when left out (postRunsIdPause). */
  operationId?: string;
  auth: ApiAuth;
  params?: P;
  query?: Q;
  /** A JSON body (`{}` when none is sent). */
  body?: B;
  headers?: Record<string, ApiHeader>;
  /** By status. 400 (with params, query or body), 401 and 403 (with a scope) and 500 are added by the document. */
  responses: Record<number, ApiResponse>;
  /** Fastify route options (bodyLimit, logLevel, an errorHandler of its own). */
  options?: Pick<RouteShorthandOptions, 'bodyLimit' | 'logLevel' | 'errorHandler'>;
  /** Registered but left out of the document (e.g. a CORS preflight); still counts as described. */
  hidden?: boolean;
}

type Parsed<T> = T extends z.ZodType ? z.output<T> : undefined;

/** What a described route's handler gets: the request, the reply, the caller and the parsed input. */
export interface ApiInput<P, Q, B> {
  req: FastifyRequest;
  reply: FastifyReply;
  /**
   * The caller's grant: set when the auth is a scope or `token` (or the route's own check returned one), else throws.
   */
  caller: Grant;
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
}

/** The key under a Fastify route's config where its ApiRoute lives (read by the document's onRoute hook). */
export const API_ROUTE_CONFIG = 'agioApi';

/** Declares a route (typed; nothing registered): export it, then register it with {@link apiRoute}. */
export function defineRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(route: ApiRoute<P, Q, B>): ApiRoute<P, Q, B> {
  return route;
}

/** The grant the route's auth asks for, checked first: 401/403 before any 400 (as every route answered before). */
function authorize(auth: ApiAuth, req: FastifyRequest, tokens: TokenTable): Grant | undefined {
  if (auth === 'public') return undefined;
  if (auth === 'token') return callerOf(req, tokens);
  if (typeof auth === 'string') return callerOf(req, tokens, auth);
  return auth.check?.(req);
}

/**
 * Registers a described route: checks its auth, parses params, query and body (`{}` when absent) with its schemas (a
 * ZodError answers 400 invalid_request) and calls the handler with them.
 */
export function apiRoute<
  P extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  B extends z.ZodType | undefined,
>(
  app: FastifyInstance,
  tokens: TokenTable,
  route: ApiRoute<P, Q, B>,
  handler: (input: ApiInput<P, Q, B>) => Promise<unknown>,
): void {
  app.route({
    method: route.method,
    url: route.path,
    ...route.options,
    config: { [API_ROUTE_CONFIG]: route },
    handler: async (req, reply) => {
      const caller = authorize(route.auth, req, tokens);
      const parse = <T extends z.ZodType | undefined>(schema: T, value: unknown) =>
        (schema ? schema.parse(value ?? {}) : undefined) as Parsed<T>;
      const params = parse(route.params, req.params);
      const query = parse(route.query, req.query);
      const body = parse(route.body, req.body);
      const input = { req, reply, params, query, body } as Omit<ApiInput<P, Q, B>, 'caller'>;
      return handler(
        Object.defineProperty(input, 'caller', {
          get: () => {
            if (!caller) throw new Error(`${route.method} ${route.path} has no caller: its auth is public or its own`);
            return caller;
          },
        }) as ApiInput<P, Q, B>,
      );
    },
  });
}
