// Callback tokens: the credential in a callback tool's URL (POST /callbacks/<token>). Workers sign them and bridges
// check them with one shared secret (AGIO_CALLBACK_SECRET), HMAC-SHA256 over claims that name the waiting workflow,
// its callback, its tenant and the expiry; so any bridge of the fleet accepts one, and none has to remember it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CALLBACK_TOKEN_VERSION, decodeCallbackClaims, type CallbackClaims } from '../common';

/** The shortest secret accepted (bytes of UTF-8). */
export const MIN_CALLBACK_SECRET_BYTES = 16;

/** Why a token is refused: not one of ours (or altered), or past its expiry. */
export type CallbackTokenRefusal = 'invalid' | 'expired';

/** Mints and checks callback tokens with one secret. */
export class CallbackTokens {
  private readonly secret: Buffer;

  constructor(secret: string) {
    if (Buffer.byteLength(secret, 'utf8') < MIN_CALLBACK_SECRET_BYTES)
      throw new Error(`the callback secret must be at least ${MIN_CALLBACK_SECRET_BYTES} bytes (AGIO_CALLBACK_SECRET)`);
    this.secret = Buffer.from(secret, 'utf8');
  }

  /** A token for these claims: `cb1.<claims, base64url JSON>.<HMAC>`. */
  mint(claims: CallbackClaims): string {
    const body = `${CALLBACK_TOKEN_VERSION}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return `${body}.${this.sign(body)}`;
  }

  /** The token's claims, or why it is refused (the signature is checked before anything in it is read). */
  verify(token: string, now = Date.now()): { claims: CallbackClaims } | { refused: CallbackTokenRefusal } {
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== CALLBACK_TOKEN_VERSION) return { refused: 'invalid' };
    const body = `${parts[0]}.${parts[1]}`;
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(parts[2]);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { refused: 'invalid' };
    const claims = decodeCallbackClaims(token);
    if (!claims) return { refused: 'invalid' };
    if (!(claims.e > now)) return { refused: 'expired' };
    return { claims };
  }

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url');
  }
}

/** The URL a token is completed at, on the bridge at `baseUrl`. */
export function callbackUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/callbacks/${token}`;
}
