// The tokens a bridge starts with. There is no fixed default token: AGIO_TOKENS names them, or, for a bridge only this
// machine can reach (bound to loopback), a random one is generated and shown once. `agio serve` also keeps its
// generated token in a file only its user can read (<data dir>/token), where the `agio` commands find it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseTokens, SCOPES } from './auth';
import { isLoopbackBind } from './host-check';

/** The tenant a generated token belongs to. */
export const GENERATED_TOKEN_TENANT = 'default';

/** A new random bearer token (192 bits). */
export function generateToken(): string {
  return `agio_${randomBytes(24).toString('base64url')}`;
}

/** The bridge's tokens and, when none were configured, the one generated for it (to be shown once). */
export interface StartTokens {
  tokens: ReturnType<typeof parseTokens>;
  generated?: string;
}

/** Thrown when a bridge reachable from other machines has no AGIO_TOKENS. */
export class TokensRequiredError extends Error {
  constructor(host: string) {
    super(
      `AGIO_TOKENS is not set, and the bridge listens on ${host}, not only on loopback: set AGIO_TOKENS ` +
        '(token:tenant,…; e.g. `openssl rand -base64 32`) so that no one reaches it with a token anyone could guess',
    );
  }
}

/**
 * AGIO_TOKENS parsed, else a generated token for a loopback bridge; refuses a bridge bound elsewhere without tokens.
 */
export function startTokens(spec: string | undefined, bindHost: string): StartTokens {
  if (spec?.trim()) return { tokens: parseTokens(spec) };
  if (!isLoopbackBind(bindHost)) throw new TokensRequiredError(bindHost);
  const generated = generateToken();
  // Only this machine reaches the bridge and only its user reads the token file: the token is its owner's, admin
  // included (metrics, the codec endpoint, tenant budgets, webhooks).
  return { tokens: parseTokens(`${generated}:${GENERATED_TOKEN_TENANT}::${SCOPES.join('+')}`), generated };
}

/** Where `agio serve` keeps its generated token. */
export function tokenFile(dataDir: string): string {
  return path.join(dataDir, 'token');
}

/** Writes the token file, readable by this user only (0600, also when it existed with looser bits). */
export async function writeTokenFile(dataDir: string, token: string): Promise<string> {
  const file = tokenFile(dataDir);
  await fs.promises.writeFile(file, `${token}\n`, { mode: 0o600 });
  await fs.promises.chmod(file, 0o600);
  return file;
}

/** The token `agio serve` wrote under `dataDir`, if any. */
export function readTokenFile(dataDir: string): string | undefined {
  try {
    return fs.readFileSync(tokenFile(dataDir), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
