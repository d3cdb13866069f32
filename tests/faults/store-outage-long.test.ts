// A store outage of a minute in the middle of runs (the worker's MongoDB stores behind a connection that is cut, as a
// restarting database looks to its clients): a run that finishes during it waits for its last writes without holding
// a workflow task (its history gains a handful of events, not three every 8 s) and completes, stored whole, once the
// store is back; a run cancelled during it ends within seconds (its last record is best effort), and its stream is
// still read to the end afterwards (its event log lacks the tail, so the reader asks the closed run); so does a run
// cancelled while it waits to start (for its session's conversation).
import { MongoClient } from 'mongodb';
import type { RunHandle } from '../../client/run-handle';
import { defineAgent, type RunOutput } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { createMongoStores } from '../../stores';
import { heldAnswer, type History } from '../helpers/agent-runs';
import { startCuttableProxy, type CuttableProxy } from '../helpers/cuttable-proxy';
import { openMongoStores, type TestMongoStores } from '../helpers/mongo-stores';
import { agioEvents, readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';
import { testEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/workflow-agents';

const OUTAGE_MS = 60_000;
const SESSION = 'outage-session';

/** Milliseconds since the epoch of a history event. */
const eventTime = (e: NonNullable<History['events']>[number]) =>
  Number(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6;

/**
 * Cancels a run and says how long it took to end. Runs of older code never end during the outage: they wait for
 * their store calls (a cancelled run's last record, a starting run's session) until the store is back.
 */
async function cancelTime(run: RunHandle): Promise<number> {
  const cancelledAt = Date.now();
  await run.cancel();
  const ended = run.result().then(
    () => 'completed',
    () => 'ended',
  );
  expect(await Promise.race([ended, new Promise((r) => setTimeout(() => r('still running'), 20_000))])).toBe('ended');
  return Date.now() - cancelledAt;
}

describe('a store outage of a minute', () => {
  let mongo: TestMongoStores;
  let proxy: CuttableProxy;
  const bed = useTestBed({
    bridge: true,
    stores: async () => {
      mongo = await openMongoStores();
      const direct = new URL(testEnv('mongoUri'));
      proxy = await startCuttableProxy({ host: direct.hostname, port: Number(direct.port) });
      // The driver's defaults, as a deployment's MONGODB_URI has them: a call waits 30 s for a server to come back.
      const client = await new MongoClient(`mongodb://127.0.0.1:${proxy.port}/`).connect();
      const close = async () => {
        await client.close(true);
        await proxy.close();
        await mongo.close();
      };
      return { stores: createMongoStores(client, { dbName: mongo.dbName }), close };
    },
  });

  it('is waited out by a finishing run without holding a workflow task, and does not hold up a cancel', async () => {
    const finisher = heldAnswer(text('finished after the outage'));
    const quitter = heldAnswer(text('never reported'));
    bed.server.scriptFor('You finish.', finisher.answer);
    bed.server.scriptFor('You stop.', quitter.answer);
    const a = await bed.agio.start(defineAgent({ name: 'finisher', instructions: 'You finish.' }), 'finish', {
      sessionId: SESSION,
    });
    const b = await bed.agio.start(defineAgent({ name: 'quitter', instructions: 'You stop.' }), 'stop');
    await waitFor('both model calls', () => bed.server.requests.length === 2);

    proxy.cut();
    const cutAt = Date.now();
    finisher.release();
    quitter.release();
    // Both runs have their answer and now wait for their last writes.
    const answered = async (runId: string) =>
      (await bed.client.workflow.getHandle(runId).fetchHistory()).events?.some(
        (e) => e.activityTaskCompletedEventAttributes,
      );
    await waitFor('both answers', async () => (await answered(a.runId)) && (await answered(b.runId)));
    const cancelMs = await cancelTime(b);
    // A run that starts during the outage waits for its session's conversation; a cancel ends that wait too.
    const c = await bed.agio.start(defineAgent({ name: 'starter' }), 'start', { sessionId: 'another-session' });
    await waitFor('the session read to wait for the store', async () =>
      (await bed.client.workflow.getHandle(c.runId).fetchHistory()).events?.some(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'loadConversation',
      ),
    );
    const startCancelMs = await cancelTime(c);

    expect((await bed.client.workflow.getHandle(a.runId).describe()).status.name).toBe('RUNNING');
    await new Promise((r) => setTimeout(r, cutAt + OUTAGE_MS - Date.now()));
    expect((await bed.client.workflow.getHandle(a.runId).describe()).status.name).toBe('RUNNING');
    proxy.restore();
    const restoredAt = Date.now();

    const output: RunOutput = await a.result();
    const doneMs = Date.now() - restoredAt;
    expect(output.response).toBe('finished after the outage');
    const history = await bed.client.workflow.getHandle(a.runId).fetchHistory();
    const events = history.events ?? [];
    const duringOutage = events.filter((e) => eventTime(e) >= cutAt && eventTime(e) < restoredAt);
    // Held in a workflow task, the wait would add three events every 8 s (over 20 in this minute).
    expect(duringOutage.length).toBeLessThanOrEqual(15);
    expect(events.length).toBeLessThan(100);
    const runs = await mongo.stores.sessions.listRuns('default', SESSION);
    expect(runs).toEqual([expect.objectContaining({ runId: a.runId, status: 'completed' })]);
    const steps = await mongo.stores.sessions.listSteps('default', a.runId);
    expect(steps.map((s) => s.role)).toEqual(['system', 'user', 'assistant']);

    // The cancelled run's stream, read after the outage, ends with its terminal event.
    const { events: frames, closedBy } = await readSse(`${bed.bridge.url}/runs/${b.runId}/events`, {
      token: 'test-token',
      timeoutMs: 30_000,
    });
    expect(closedBy).toBe('server');
    expect(agioEvents(frames).at(-1)?.type).toBe('RUN_CANCELLED');
    expect(cancelMs).toBeLessThan(10_000);
    expect(startCancelMs).toBeLessThan(10_000);
    expect(
      agioEvents((await readSse(`${bed.bridge.url}/runs/${c.runId}/events`, { token: 'test-token' })).events).at(-1)
        ?.type,
    ).toBe('RUN_CANCELLED');
    console.log(
      `store outage of ${OUTAGE_MS / 1000} s: the finishing run gained ${duringOutage.length} history events during it ` +
        `(${events.length} in all) and completed ${doneMs} ms after the store came back; a cancel during it ended its ` +
        `run in ${cancelMs} ms, and one of a run waiting to start in ${startCancelMs} ms`,
    );
  }, 180_000);
});
