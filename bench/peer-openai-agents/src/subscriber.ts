// The peer's stream client process (`node --import tsx src/subscriber.ts`, config in PEER_CONFIG): what a UI
// backend would run to follow a peer run live. For each `{"op":"subscribe",…}` line on stdin it follows that
// workflow's WorkflowStream topic with @temporalio/workflow-streams' WorkflowStreamClient (polling Updates) and
// prints JSON lines: `open` at the first item, then `done` with every text delta and its receive time
// (Date.now(), the same system clock the bench's model server stamps chunks with). With `signalDone` it stops
// at the run's `run_finished` item and signals the workflow that it may complete.
import { Client, Connection } from '@temporalio/client';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import readline from 'node:readline';
import {
  PEER_CONFIG_ENV,
  PEER_TOPIC,
  SUBSCRIBER_DONE_SIGNAL,
  type PeerConfig,
  type SubscribeRequest,
  type SubscriberMessage,
} from './protocol';

/** A raw model stream event as the plugin's streaming activity publishes it (only the fields used here). */
interface StreamEvent {
  type?: string;
  delta?: string;
}

function emit(message: SubscriberMessage): void {
  process.stdout.write(JSON.stringify(message) + '\n');
}

async function follow(client: Client, { workflowId, tag, signalDone }: SubscribeRequest): Promise<void> {
  const deltas: [string, number][] = [];
  let items = 0;
  let signalError: string | undefined;
  try {
    const topic = WorkflowStreamClient.create(client, workflowId).topic<StreamEvent>(PEER_TOPIC);
    for await (const item of topic.subscribe(0)) {
      const at = Date.now();
      if (items++ === 0) emit({ op: 'open', tag, at });
      if (item.data?.type === 'output_text_delta' && item.data.delta) deltas.push([item.data.delta, at]);
      if (signalDone && item.data?.type === 'run_finished') {
        // Fails if the workflow stopped waiting for us (its drain timed out): report it with what we got.
        await client.workflow
          .getHandle(workflowId)
          .signal(SUBSCRIBER_DONE_SIGNAL)
          .catch((err: unknown) => (signalError = err instanceof Error ? err.message : String(err)));
        break;
      }
    }
    emit({ op: 'done', tag, items, deltas, ...(signalError ? { signalError } : {}) });
  } catch (err) {
    emit({ op: 'error', tag, message: err instanceof Error ? err.message : String(err) });
  }
}

async function main(): Promise<void> {
  const raw = process.env[PEER_CONFIG_ENV];
  if (!raw) throw new Error(`${PEER_CONFIG_ENV} is not set`);
  const config = JSON.parse(raw) as PeerConfig;
  const connection = await Connection.connect({ address: config.address });
  const client = new Client({ connection });
  const lines = readline.createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line.trim()) void follow(client, JSON.parse(line) as SubscribeRequest);
  });
  lines.once('close', () => {
    void connection.close().then(() => process.exit(0));
  });
  process.once('SIGTERM', () => process.exit(0));
  console.log(`READY ${JSON.stringify({ pid: process.pid })}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
