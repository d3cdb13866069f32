// Connections to Temporal from configuration: plain for a dev server, TLS and API key for a cluster or Cloud.
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { AgioEnv } from './config';

function connectionOptions(env: AgioEnv, address: string) {
  const tls = env.TEMPORAL_TLS === 'true' || Boolean(env.TEMPORAL_API_KEY);
  return { address, ...(tls ? { tls: true } : {}), ...(env.TEMPORAL_API_KEY ? { apiKey: env.TEMPORAL_API_KEY } : {}) };
}

/** The worker's connection. */
export function connectWorker(env: AgioEnv, address: string): Promise<NativeConnection> {
  return NativeConnection.connect(connectionOptions(env, address));
}

/** A client connection (client, bridge, CLI). */
export function connectClient(env: AgioEnv, address: string): Promise<Connection> {
  return Connection.connect(connectionOptions(env, address));
}
