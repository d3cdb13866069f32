// The live lane a separate worker or bridge uses: NATS JetStream when AGIO_NATS_URL names it; none otherwise (a worker
// then batches deltas into the root's Wire by signal, and a bridge reads them from there).
import type { LiveLane } from '../live/lane';
import { NatsLane } from '../live/nats-lane';
import type { AgioEnv } from './env';

/** The configured lane and how to close it. */
export async function liveLaneFromEnv(
  env: Pick<AgioEnv, 'AGIO_NATS_URL'>,
): Promise<{ lane?: LiveLane; close(): Promise<void> }> {
  if (!env.AGIO_NATS_URL) return { close: async () => undefined };
  const lane = await NatsLane.connect(env.AGIO_NATS_URL);
  return { lane, close: () => lane.close() };
}
