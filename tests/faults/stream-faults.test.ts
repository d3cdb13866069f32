// Faults seen by a live SSE client: a worker SIGKILLed mid-stream (STEP_RETRY, then only the new attempt's
// text), a publish batch delivered twice (applied once), and a run whose model call fails (RUN_FAILED ends it).
import { defineAgent, ErrorType, type AgioEvent, type PublishBatch } from '../../common';
import { eventsQuery, publishSignal } from '../../common/messages';
import { text } from '../../devkit/scripted-model-server';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { agioEvents, readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';
import { startTestWorker, uniqueId } from '../helpers/temporal';
import { failoverWorkers, startTestWorkerProcess } from '../helpers/worker-process';

const TOKEN = 'test-token';

function expectContiguous(events: AgioEvent[]): void {
  expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
}

describe('stream faults', () => {
  const bed = useTestBed({ bridge: true });
  const { model } = bed;

  describe('when the worker process is SIGKILLed in the middle of a model stream', () => {
    const workers = failoverWorkers();
    let bridge: TestBridge | undefined;
    afterAll(async () => {
      await bridge?.close();
    });

    it('sends STEP_RETRY with attempt 2, then the whole new attempt, and a STEP_COMPLETED holding only its text', async () => {
      const taskQueue = uniqueId('sse-kill');
      const first = (workers.first = await startTestWorkerProcess({ taskQueue, model: model() }));
      bridge = await startBridge({ client: bed.client, taskQueue });
      const oldText = 'OLD attempt text that the killed worker never finishes streaming to anyone.';
      const newText = 'NEW attempt text, streamed in full by the worker that took over.';
      // Attempt 1 streams slowly (~2.5 s) so the kill lands mid-stream; attempt 2 streams at full speed.
      bed.server.script(text(oldText, { chunkSize: 3, delayMs: 100 }), text(newText, { chunkSize: 3, delayMs: 5 }));
      const run = await bridge.agio.start(defineAgent({ name: 'survivor' }), 'stream something', {
        limits: { modelHeartbeatTimeoutMs: 2000 },
      });

      // The worker dies as soon as the bed.client has seen attempt 1's first delta.
      let killed!: () => void;
      const killedMidStream = new Promise<void>((resolve) => (killed = resolve));
      const reading = readSse(`${bridge.url}/runs/${run.runId}/events`, {
        token: TOKEN,
        timeoutMs: 45_000,
        onEvent: (frame) => {
          if (frame.event !== 'STEP_DELTA') return;
          first.kill('SIGKILL');
          killed();
        },
      });
      await killedMidStream;
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
      workers.second = await startTestWorker({ model: model(), taskQueue });
      const { events: frames, closedBy } = await reading;

      const events = agioEvents(frames);
      expect(closedBy).toBe('server');
      expectContiguous(events);
      expect(events.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', depth: 0, data: { response: newText } });
      const completed = events.filter((e) => e.type === 'STEP_COMPLETED' && e.snapshot?.role === 'assistant');
      expect(completed).toHaveLength(1);
      const { stepId } = completed[0];
      const step = events.filter((e) => e.stepId === stepId);
      const retries = step.filter((e) => e.type === 'STEP_RETRY');
      expect(retries).toEqual([expect.objectContaining({ stepId, attempt: 2 })]);
      const retryAt = step.indexOf(retries[0]);
      const before = step.slice(0, retryAt);
      const after = step.slice(retryAt + 1);
      // Before the retry: partial text of attempt 1 only (the bed.client saw some of it, then the worker died).
      expect(before.every((e) => e.type === 'STEP_DELTA' && e.attempt === 1)).toBe(true);
      const partial = before.map((e) => e.delta?.content ?? '').join('');
      expect(partial.length).toBeGreaterThan(0);
      expect(oldText.startsWith(partial) && partial.length < oldText.length).toBe(true);
      // After it: the full text of attempt 2, then the one STEP_COMPLETED, which holds only that text.
      expect(after.at(-1)).toBe(completed[0]);
      const retried = after.slice(0, -1);
      expect(retried.every((e) => e.type === 'STEP_DELTA' && e.attempt === 2)).toBe(true);
      expect(retried.map((e) => e.delta?.content ?? '').join('')).toBe(newText);
      expect(completed[0].snapshot?.content).toBe(newText);
      expect(completed[0].snapshot?.metrics?.attempt).toBe(2);
    });
  });

  describe('on an in-process worker', () => {
    it('applies a publish batch sent twice (same publisherId and sequence) once', async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      bed.server.script(async () => {
        await gate;
        return text('done');
      });
      const run = await bed.bridge.agio.start(defineAgent({ name: 'deduplicated' }), 'wait for it');
      const handle = bed.client.workflow.getHandle(run.runId);
      const page = async () => handle.query(eventsQuery, {});
      // The run is blocked in its model call: its first events are in the log.
      while ((await page()).events.length < 2) await new Promise((r) => setTimeout(r, 25));
      const batch = (sequence: number, marker: string): PublishBatch => ({
        publisherId: 'test:duplicate',
        sequence,
        events: [
          {
            type: 'AGENT_STATE',
            runId: run.runId,
            rootRunId: run.runId,
            agent: 'deduplicated',
            depth: 0,
            data: { marker },
            timestamp: Date.now(),
          },
        ],
      });

      await handle.signal(publishSignal, batch(0, 'first'));
      await handle.signal(publishSignal, batch(0, 'first'));
      await handle.signal(publishSignal, batch(1, 'second'));
      await handle.signal(publishSignal, batch(0, 'first'));
      const markers = (await page()).events
        .filter((e) => e.type === 'AGENT_STATE')
        .map((e) => (e.data as Record<string, unknown> | undefined)?.marker);
      release();
      await run.result();

      expect(markers).toEqual(['first', 'second']);
      const events = agioEvents((await readSse(`${bed.bridge.url}/runs/${run.runId}/events`, { token: TOKEN })).events);
      expectContiguous(events);
      expect(
        events
          .filter((e) => e.type === 'AGENT_STATE')
          .map((e) => (e.data as Record<string, unknown> | undefined)?.marker),
      ).toEqual(['first', 'second']);
      expect(events.at(-1)?.type).toBe('RUN_COMPLETED');
    });

    it('ends the stream with RUN_FAILED when the model call fails with a 401', async () => {
      bed.server.script({ error: { status: 401 } });
      const run = await bed.bridge.agio.start(defineAgent({ name: 'unauthorised' }), 'hi');

      const { events: frames, closedBy } = await readSse(`${bed.bridge.url}/runs/${run.runId}/events`, {
        token: TOKEN,
      });

      const events = agioEvents(frames);
      expect(closedBy).toBe('server');
      expectContiguous(events);
      expect(events.map((e) => e.type)).toEqual(['RUN_STARTED', 'STEP_COMPLETED', 'RUN_FAILED']);
      expect(events.at(-1)).toMatchObject({
        depth: 0,
        runId: run.runId,
        data: { error: { type: ErrorType.ModelAuthError, message: expect.stringContaining('401') } },
      });
      expect((await run.workflow.describe()).status.name).toBe('FAILED');
    });
  });
});
