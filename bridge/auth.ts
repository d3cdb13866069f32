// Bearer-token auth: every token maps to a tenant, and a request only ever sees its tenant's runs.
import type { FastifyRequest } from 'fastify';
import { HttpError } from './errors';
import type { StreamTokens } from './stream-tokens';

/** Parses `token:tenant,token2:tenant2` (AGIO_TOKENS) into a token → tenant map. */
export function parseTokens(spec: string): Map<string, string> {
  const tokens = new Map<string, string>();
  for (const pair of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [token, tenant] = pair.split(':');
    if (!token || !tenant) throw new Error(`AGIO_TOKENS entry "${pair}" must look like token:tenant`);
    tokens.set(token, tenant);
  }
  if (tokens.size === 0) throw new Error('AGIO_TOKENS holds no token');
  return tokens;
}

/** The tenant of the request's bearer token; 401 when it is missing or unknown. */
export function tenantOf(req: FastifyRequest, tokens: Map<string, string>): string {
  const header = req.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  const tenant = match ? tokens.get(match[1]) : undefined;
  if (!tenant)
    throw new HttpError(401, 'unauthorized', match ? 'unknown bearer token' : 'send Authorization: Bearer <token>');
  return tenant;
}

/**
 * The tenant of a stream request: its bearer token's, or, without an Authorization header, that of the stream token
 * in `?access_token=` (a browser's EventSource), which must be for this very run and unexpired.
 */
export function streamTenantOf(
  req: FastifyRequest,
  runId: string,
  tokens: Map<string, string>,
  streamTokens: StreamTokens,
): string {
  const token = (req.query as { access_token?: unknown } | undefined)?.access_token;
  if (req.headers.authorization !== undefined || token === undefined) return tenantOf(req, tokens);
  if (typeof token !== 'string') throw new HttpError(401, 'unauthorized', 'send one access_token');
  const verdict = streamTokens.verify(token, runId);
  if ('refused' in verdict) throw new HttpError(401, 'unauthorized', verdict.refused);
  return verdict.tenant;
}
