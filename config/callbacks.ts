// Callback tools' configuration (docs/ARCHITECTURE.md, "Callback tools"): the secret workers sign callback URLs with
// and bridges check them with (AGIO_CALLBACK_SECRET), and the bridges' public base URL the URLs point at
// (AGIO_CALLBACK_BASE_URL). `agio serve` keeps a generated secret in its data directory, so URLs survive its restarts.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { CallbackOptions } from '../activities/callbacks/start-callback';
import { MIN_CALLBACK_SECRET_BYTES } from '../platform/callback-tokens';
import type { AgioEnv } from './env';

/** A worker's callback options from the environment: none without AGIO_CALLBACK_SECRET; a secret needs a base URL. */
export function callbackOptionsFromEnv(env: AgioEnv): CallbackOptions | undefined {
  if (!env.AGIO_CALLBACK_SECRET) return undefined;
  const base = env.AGIO_CALLBACK_BASE_URL;
  if (!base)
    throw new Error(
      'AGIO_CALLBACK_SECRET is set but AGIO_CALLBACK_BASE_URL is not: set it to the URL the bridges are reached at',
    );
  const url = new URL(base);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error(`AGIO_CALLBACK_BASE_URL must be an http(s) URL, not ${url.protocol}`);
  return { secret: env.AGIO_CALLBACK_SECRET, baseUrl: base };
}

/**
 * `agio serve`'s callback secret: AGIO_CALLBACK_SECRET, else the one in `<dataDir>/callback-secret`, generated (32
 * random bytes, mode 0600) on the first start, so callback URLs handed out before a restart still work after it.
 */
export async function serveCallbackSecret(env: AgioEnv, dataDir: string): Promise<string> {
  if (env.AGIO_CALLBACK_SECRET) return env.AGIO_CALLBACK_SECRET;
  const file = path.join(dataDir, 'callback-secret');
  const kept = await fs.promises.readFile(file, 'utf8').catch(() => undefined);
  if (kept && Buffer.byteLength(kept.trim()) >= MIN_CALLBACK_SECRET_BYTES) return kept.trim();
  const secret = randomBytes(32).toString('base64url');
  await fs.promises.writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
