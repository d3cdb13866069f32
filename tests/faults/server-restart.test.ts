// The Temporal server restarts in the middle of a run: a file-backed dev server of this test's own (the shared one
// serves every other test file) is stopped while the model streams and started again on the same port and
// database. The worker and the bridge reconnect by themselves, the run completes, an SSE client that stayed
// connected sees the whole log, and one that dropped during the outage and came back with Last-Event-ID sees
// exactly the rest: no gap, no duplicate.
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineAgent, type AgioEvent } from '../../common';
import { freePort } from '../../devkit/free-port';
import { text } from '../../devkit/scripted-model-server';
import { startTemporalDevServer, type TemporalDevServer } from '../../devkit/temporal-server';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { expectWholeStream } from '../helpers/nested-runs';
import { agioEvents, readSse, type SseEvent } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';
import { startTestWorker, type TestWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/workflow-agents';

const TOKEN = 'test-token';
const ANSWER = 'This answer streams in many small chunks while the Temporal server goes away and comes back again.';

describe('a Temporal server restart mid-run', () => {
  const bed = useTestBed({ worker: false });
  let dir: string;
  let port: number;
  let server: TemporalDevServer | undefined;
  let connection: Connection | undefined;
  let workerConnection: NativeConnection | undefined;
  let worker: TestWorker | undefined;
  let bridge: TestBridge | undefined;

  const startServer = () => startTemporalDevServer({ dbFilename: path.join(dir, 'temporal.db'), port });

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'agio-restart-'));
    port = await freePort();
    server = await startServer();
    connection = await Connection.connect({ address: server.address });
    workerConnection = await NativeConnection.connect({ address: server.address });
    worker = await startTestWorker({ connection: workerConnection, model: bed.model() });
    bridge = await startBridge({ client: new Client({ connection }), taskQueue: worker.taskQueue });
  }, 120_000);
  afterAll(async () => {
    await bridge?.close();
    await worker?.stop();
    await workerConnection?.close();
    await connection?.close();
    await server?.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('completes the run; a connected client and one that resumed with Last-Event-ID both see every event once', async () => {
    // ~100 chunks 60 ms apart: about 6 s of streaming, with the outage in the middle. The same answer for every
    // attempt: a call whose heartbeats could not reach the server while it was down (6 s heartbeat timeout) may be
    // tried again, and readers then drop the first attempt's text (STEP_RETRY).
    bed.server.setDefault(text(ANSWER, { chunkSize: 1, delayMs: 60 }));
    const run = await bridge!.agio.start(defineAgent({ name: 'steadfast' }), 'keep talking');
    const url = `${bridge!.url}/runs/${run.runId}/events`;

    let sawDelta!: () => void;
    const streaming = new Promise<void>((resolve) => (sawDelta = resolve));
    const stayed = readSse(url, {
      token: TOKEN,
      timeoutMs: 90_000,
      onEvent: (f) => f.event === 'STEP_DELTA' && sawDelta(),
    });
    // A second client reads a few events, then drops; it comes back after the restart.
    const dropped = await readSse(url, { token: TOKEN, maxEvents: 4, timeoutMs: 30_000 });
    expect(dropped.closedBy).toBe('client');
    await streaming;

    let chunks = 0;
    bed.server.onChunk = () => chunks++;
    await server!.stop();
    // The outage lasts while the model call goes on streaming: ten chunks (about 0.6 s) written with the server down.
    await waitFor('the model call to stream on during the outage', () => chunks >= 10, 20_000);
    server = await startServer();
    const lastSeen = dropped.events.at(-1)!.id;
    const resumed = await readSse(url, { token: TOKEN, lastEventId: lastSeen, timeoutMs: 90_000 });
    const whole = await stayed;

    expect((await run.result()).response).toBe(ANSWER);
    const events = agioEvents(whole.events);
    expectWholeStream(events, run.runId);
    const rejoined: AgioEvent[] = agioEvents([...dropped.events, ...resumed.events] as SseEvent[]);
    expect(rejoined.map((e) => e.offset)).toEqual(events.map((e) => e.offset));
    expect(rejoined).toEqual(events);
    const completed = events.filter((e) => e.type === 'STEP_COMPLETED' && e.snapshot?.role === 'assistant');
    expect(completed.map((e) => e.snapshot?.content)).toEqual([ANSWER]);
  }, 120_000);
});
