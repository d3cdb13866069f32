// Jest global teardown: stops the servers the global setup started, so no process is left behind.
import fs from 'node:fs';
import type { TestServers } from './helpers/test-env';

export default async function globalTeardown(): Promise<void> {
  const servers = (globalThis as { __agioServers?: TestServers }).__agioServers;
  if (!servers) return;
  await Promise.all([servers.temporal.stop(), servers.ferret.stop(), servers.nats.stop()]);
  await fs.promises.rm(servers.dir, { recursive: true, force: true });
}
