// The `agio` commands that talk to a running bridge (AGIO_URL, AGIO_TOKEN).
import path from 'node:path';
import { readTokenFile } from '../bridge/start-tokens';
import type { AgioEvent } from '../common';
import { BridgeClient } from './bridge-client';
import { LiveView } from './live-view';

/**
 * The bridge from the environment (defaults match `agio serve`): AGIO_TOKEN, else the token `agio serve` generated
 * and keeps in <AGIO_DATA_DIR>/token.
 */
export function bridgeFromEnv(env: NodeJS.ProcessEnv = process.env): BridgeClient {
  const dataDir = env.AGIO_DATA_DIR || '.agio';
  const token = () => {
    const found = env.AGIO_TOKEN || readTokenFile(dataDir);
    if (found) return found;
    throw new Error(
      `no token: set AGIO_TOKEN (one of the bridge's AGIO_TOKENS), or run this where \`agio serve\` runs: it keeps ` +
        `its token in ${path.join(dataDir, 'token')}`,
    );
  };
  return new BridgeClient((env.AGIO_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, ''), token);
}

/** Follows a run live until its root finishes; returns the exit code (0 completed, 1 otherwise). */
export async function watch(bridge: BridgeClient, runId: string, after: number | string = -1): Promise<number> {
  const view = new LiveView((s) => process.stdout.write(s), Boolean(process.stdout.isTTY));
  let last: AgioEvent | undefined;
  try {
    await bridge.streamEvents(
      runId,
      (event) => {
        last = event;
        view.handle(event);
      },
      after,
    );
  } finally {
    view.close();
  }
  return last?.type === 'RUN_COMPLETED' ? 0 : 1;
}

/** Starts a run of a registered agent and watches it. */
export async function run(bridge: BridgeClient, agent: string, input: string, sessionId?: string): Promise<number> {
  const { runId } = await bridge.request<{ runId: string }>('POST', '/runs', {
    agent,
    input,
    ...(sessionId ? { sessionId } : {}),
  });
  return watch(bridge, runId);
}

/** Prints a bridge answer as JSON. */
export async function printJson(promise: Promise<unknown>): Promise<number> {
  process.stdout.write(`${JSON.stringify(await promise, null, 2)}\n`);
  return 0;
}
