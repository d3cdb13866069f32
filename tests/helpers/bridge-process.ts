// An HTTP bridge in a separate OS process (tests/fixtures/bridge-main.ts run by tsx), for tests that SIGKILL one.
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { AnyAgentSpec } from '../../common';
import { testEnv } from './test-env';

/** What the bridge process reads from AGIO_TEST_BRIDGE_CONFIG. */
export interface BridgeProcessConfig {
  address: string;
  taskQueue: string;
  /** NATS for the live lane (as AGIO_NATS_URL). */
  natsUrl?: string;
  /** Agents the bridge holds (POST /runs starts them with their spec). */
  agents?: AnyAgentSpec[];
  /** MongoDB stores (as MONGODB_URI, through storesFromEnv) behind the routes that read them (default none). */
  mongoUri?: string;
  /** `token:tenant[:identity[:scopes]],…` as in AGIO_TOKENS (default `test-token:default`). */
  tokens?: string;
}

/** Environment variable that carries the config. */
export const BRIDGE_CONFIG_ENV = 'AGIO_TEST_BRIDGE_CONFIG';

/** A running bridge process. */
export interface BridgeProcess {
  url: string;
  kill(signal: NodeJS.Signals): void;
  exited: Promise<void>;
}

const REPO_ROOT = path.resolve(__dirname, '../..');

/** Starts a bridge process on the test dev server and resolves once it listens. */
export function startBridgeProcess(
  config: Omit<BridgeProcessConfig, 'address'>,
  env: Record<string, string> = {},
): Promise<BridgeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('tests', 'fixtures', 'bridge-main.ts')], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      ...env,
      [BRIDGE_CONFIG_ENV]: JSON.stringify({ address: testEnv('temporalAddress'), ...config }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise<BridgeProcess>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`bridge process not ready after 30 s:\n${output}`));
    }, 30_000);
    child.stderr.setEncoding('utf8').on('data', (s: string) => (output += s));
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      output += s;
      const m = /READY (\S+)/.exec(output);
      if (!m) return;
      clearTimeout(timer);
      resolve({ url: m[1], kill: (signal) => child.kill(signal), exited });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`bridge process exited with ${code} before it was ready:\n${output}`));
    });
  });
}
