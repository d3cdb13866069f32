// Stream tokens: what a browser's EventSource, which cannot send an Authorization header, shows instead. A caller with
// a bearer token mints one for one run (POST /runs/:id/stream-token); it opens only that run's event stream, for
// its tenant, until it expires (5 minutes by default). Signed with HMAC-SHA256, so any bridge with the same secret
// accepts it and none has to remember it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Default lifetime of a stream token. */
export const STREAM_TOKEN_TTL_MS = 5 * 60_000;

interface Claims {
  /** Tenant. */
  t: string;
  /** Run id the token opens. */
  r: string;
  /** Expiry, ms since the epoch. */
  e: number;
}

/** Mints and checks stream tokens with one secret. */
export class StreamTokens {
  private readonly secret: Buffer;

  /**
   * `secret`: shared by every bridge that must accept the same tokens (AGIO_STREAM_TOKEN_SECRET); default: random per
   * process.
   */
  constructor(
    secret?: string,
    private readonly ttlMs = STREAM_TOKEN_TTL_MS,
  ) {
    this.secret = secret ? Buffer.from(secret, 'utf8') : randomBytes(32);
  }

  /** A token that opens `runId`'s stream for `tenant` until `expiresAt`. */
  mint(tenant: string, runId: string, now = Date.now()): { token: string; expiresAt: string } {
    const claims: Claims = { t: tenant, r: runId, e: now + this.ttlMs };
    const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return { token: `${body}.${this.sign(body)}`, expiresAt: new Date(claims.e).toISOString() };
  }

  /** The tenant a token opens `runId` for, or why it does not (forged, for another run, expired, malformed). */
  verify(token: string, runId: string, now = Date.now()): { tenant: string } | { refused: string } {
    const [body, signature, extra] = token.split('.');
    if (!body || !signature || extra !== undefined) return { refused: 'malformed stream token' };
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return { refused: 'invalid stream token' };
    let claims: Claims;
    try {
      claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Claims;
    } catch {
      return { refused: 'malformed stream token' };
    }
    if (claims.r !== runId) return { refused: 'this stream token is for another run' };
    if (!(claims.e > now))
      return { refused: 'the stream token has expired: mint another with POST /runs/:id/stream-token' };
    return { tenant: claims.t };
  }

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url');
  }
}
