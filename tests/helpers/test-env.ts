// What the global setup hands to test files: server addresses and the prebuilt workflow bundles.
import type { FerretDbServer } from '../../devkit/ferretdb-server';
import type { NatsServer } from '../../devkit/nats-server';
import type { TemporalDevServer } from '../../devkit/temporal-server';

/** Environment variable names set by the global setup. */
export const TEST_ENV = {
  temporalAddress: 'AGIO_TEST_TEMPORAL_ADDRESS',
  temporalDbFile: 'AGIO_TEST_TEMPORAL_DB',
  mongoUri: 'AGIO_TEST_MONGODB_URI',
  workflowBundle: 'AGIO_TEST_WORKFLOW_BUNDLE',
  /** Agio's own workflows alone (what `agio serve` runs), for the serves tests start. */
  agioWorkflowBundle: 'AGIO_TEST_AGIO_WORKFLOW_BUNDLE',
  natsUrl: 'AGIO_TEST_NATS_URL',
} as const;

/** Handles kept by the global setup for teardown. */
export interface TestServers {
  temporal: TemporalDevServer;
  ferret: FerretDbServer;
  nats: NatsServer;
  dir: string;
}

/** Reads a value the global setup exported; fails clearly when a test runs outside the integration project. */
export function testEnv(key: keyof typeof TEST_ENV): string {
  const value = process.env[TEST_ENV[key]];
  if (!value)
    throw new Error(`${TEST_ENV[key]} is not set: run this test through jest's integration project (npm test)`);
  return value;
}
