// Bearer-token auth: every token maps to a tenant, an identity and scopes. A request only ever sees its tenant's runs,
// only does what its token's scopes allow, and acts (approves, pauses…) as its token's identity.
import type { FastifyRequest } from 'fastify';
import { HttpError } from './errors';
import type { StreamTokens } from './stream-tokens';

/** What a token may do: start runs, read them, decide approvals, control them (pause, resume, cancel), admin. */
export const SCOPES = ['start', 'read', 'decide', 'control', 'admin'] as const;
/** One of {@link SCOPES}. */
export type Scope = (typeof SCOPES)[number];
/** The scopes of a token that names none: everything but `admin` (what every token could do before scopes existed). */
export const DEFAULT_SCOPES: readonly Scope[] = ['start', 'read', 'decide', 'control'];

/** Who a token speaks for. */
export interface Grant {
  tenant: string;
  /** Recorded as `by` on the approvals, denials, pauses and resumes it sends. */
  identity: string;
  scopes: ReadonlySet<Scope>;
  /** Roles (AGIO_TOKENS' fifth field): an approval escalated to a role is decided only by tokens holding it. */
  roles?: ReadonlySet<string>;
}

/** token → grant; a plain tenant string stands for a token with the default scopes and identity. */
export type TokenTable = ReadonlyMap<string, Grant | string>;

/** The identity of a token that names none: `api:<tenant>` (what `by` defaulted to before identities existed). */
export const defaultIdentity = (tenant: string): string => `api:${tenant}`;

/** A token table entry as a grant (a plain tenant: default identity and scopes). */
export function grantOf(entry: Grant | string): Grant {
  return typeof entry === 'string'
    ? { tenant: entry, identity: defaultIdentity(entry), scopes: new Set(DEFAULT_SCOPES) }
    : entry;
}

const IDENTITY = /^[\x21-\x7e]{1,200}$/;
const ROLE = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Parses AGIO_TOKENS: comma-separated `token:tenant[:identity[:scope+scope…[:role+role…]]]`. `dev:acme` is a token of
 * tenant `acme` with identity `api:acme` and the default scopes ({@link DEFAULT_SCOPES}); `r0:acme:dash:read` a
 * read-only one acting as `dash`; `ops:acme:alice:read+decide+control+admin` one for an operator;
 * `lead:acme:bob::approver-lead` one with the default scopes and the role `approver-lead` (approvals escalated to it).
 * An empty identity (`t:acme::read`) keeps the default, and so does an empty scope list followed by roles.
 */
export function parseTokens(spec: string): Map<string, Grant> {
  const tokens = new Map<string, Grant>();
  for (const entry of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [token, tenant, identity, scopes, roleList, extra] = entry.split(':');
    const where = `AGIO_TOKENS entry "${token ? `${token.slice(0, 4)}…` : ''}"`;
    if (!token || !tenant || extra !== undefined)
      throw new Error(`${where} must look like token:tenant[:identity[:scope+scope[:role+role]]]`);
    if (tokens.has(token)) throw new Error(`${where}: the token is listed twice`);
    if (identity && !IDENTITY.test(identity))
      throw new Error(`${where}: the identity must be 1-200 visible ASCII characters without ":" or ","`);
    // An empty scope list is refused, unless roles follow it (`t:acme:bob::lead`: the default scopes and a role).
    const named =
      scopes === undefined || (scopes === '' && roleList) ? [...DEFAULT_SCOPES] : scopes.split('+').filter(Boolean);
    const roles = (roleList ?? '').split('+').filter(Boolean);
    if (roles.some((r) => !ROLE.test(r))) throw new Error(`${where}: a role is 1-64 letters, digits, . _ -`);
    const unknown = named.find((s) => !(SCOPES as readonly string[]).includes(s));
    if (unknown !== undefined || named.length === 0)
      throw new Error(`${where}: scopes are ${SCOPES.join(', ')}, joined with + (e.g. read+decide)`);
    tokens.set(token, {
      tenant,
      identity: identity || defaultIdentity(tenant),
      scopes: new Set(named as Scope[]),
      ...(roles.length ? { roles: new Set(roles) } : {}),
    });
  }
  if (tokens.size === 0) throw new Error('AGIO_TOKENS holds no token');
  return tokens;
}

/** 403 for a token that lacks a scope: `{ error: { code: 'forbidden', scope, message } }`. */
export function forbidden(scope: Scope, message = `this token lacks the "${scope}" scope`): HttpError {
  return new HttpError(403, 'forbidden', message, { scope });
}

/** Whether a grant holds a scope (`admin` holds every scope). */
export const hasScope = (grant: Grant, scope: Scope): boolean => grant.scopes.has(scope) || grant.scopes.has('admin');

/**
 * The grant of the request's bearer token; 401 when it is missing or unknown, 403 when `scope` is given and the token
 * lacks it.
 */
export function callerOf(req: FastifyRequest, tokens: TokenTable, scope?: Scope): Grant {
  const header = req.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  const entry = match ? tokens.get(match[1]) : undefined;
  if (!entry)
    throw new HttpError(401, 'unauthorized', match ? 'unknown bearer token' : 'send Authorization: Bearer <token>');
  const grant = grantOf(entry);
  if (scope && !hasScope(grant, scope)) throw forbidden(scope);
  return grant;
}

/** The tenant of the request's bearer token (see {@link callerOf}). */
export function tenantOf(req: FastifyRequest, tokens: TokenTable, scope?: Scope): string {
  return callerOf(req, tokens, scope).tenant;
}

/**
 * The tenant of a stream request: its bearer token's (which must hold `read`), or, without an Authorization header,
 * that of the stream token in `?access_token=` (a browser's EventSource), which must be for this very run and
 * unexpired. A stream token only ever reads: no other route accepts it.
 */
export function streamTenantOf(
  req: FastifyRequest,
  runId: string,
  tokens: TokenTable,
  streamTokens: StreamTokens,
): string {
  const token = (req.query as { access_token?: unknown } | undefined)?.access_token;
  if (req.headers.authorization !== undefined || token === undefined) return tenantOf(req, tokens, 'read');
  if (typeof token !== 'string') throw new HttpError(401, 'unauthorized', 'send one access_token');
  const verdict = streamTokens.verify(token, runId);
  if ('refused' in verdict) throw new HttpError(401, 'unauthorized', verdict.refused);
  return verdict.tenant;
}
