// Event types from newer releases are kept (docs/ARCHITECTURE.md, "The Wire"): a child already upgraded to a release
// with a new event type publishes it to a root still on this one. The root used to drop that whole batch (its strict
// schema refused the type); now it keeps the events as they are, in order, in its log, its stream (SSE included) and
// its event-log store, while a batch malformed otherwise is still refused.
import { defineAgent, type WireEvent } from '../../common';
import { publishSignal } from '../../common/messages';
import { text } from '../../devkit/scripted-model-server';
import { heldAnswer } from '../helpers/agent-runs';
import { eventsNow, readStream, withoutTimestamps } from '../helpers/nested-runs';
import { agioEvents, readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

const TOKEN = 'test-token';

describe('event types from a newer release', () => {
  const bed = useTestBed({ bridge: true });

  it('are kept in order beside known ones in the log, the SSE stream and the event-log store; malformed batches are not', async () => {
    const held = heldAnswer(text('the root is done'));
    bed.server.script(held.answer);
    const run = await bed.agio.start(defineAgent({ name: 'older-root' }), 'wait for the newer child');
    await waitFor('the model call', () => bed.server.requests.length === 1);

    const child = {
      runId: `${run.runId}/tool/0-call_new`,
      rootRunId: run.runId,
      parentRunId: run.runId,
      agent: 'newer-child',
      depth: 1,
      nestingType: 'agent_tool' as const,
      toolCallId: 'call_new',
    };
    const root = bed.client.workflow.getHandle(run.runId);
    await root.signal(publishSignal, {
      publisherId: `run:${child.runId}`,
      sequence: 0,
      events: [
        { ...child, type: 'RUN_STARTED', timestamp: 1, data: { kind: 'llm' } },
        { ...child, type: 'FUTURE_THING' as never, timestamp: 2, data: { shiny: true } },
      ],
    });
    // Malformed beyond its type (lower case, no run id): refused whole, as before.
    await root.signal(publishSignal, {
      publisherId: 'run:broken',
      sequence: 0,
      events: [{ ...child, runId: undefined as never, type: 'future thing' as never, timestamp: 3 }],
    });
    await waitFor(
      'the newer event in the log',
      async () => (await eventsNow(bed.client, run.runId)).some((e) => (e.type as string) === 'FUTURE_THING'),
      10_000,
    );
    held.release();
    expect((await run.result()).response).toBe('the root is done');

    const isChilds = (e: WireEvent) => e.runId === child.runId;
    const expected = [
      { type: 'RUN_STARTED', data: { kind: 'llm' } },
      { type: 'FUTURE_THING', data: { shiny: true } },
    ];
    const logged = await readStream(bed.client, run.runId);
    expect(logged.filter(isChilds).map(({ type, data }) => ({ type, data }))).toEqual(expected);
    const [started, future] = logged.filter(isChilds);
    expect(future.offset).toBe(started.offset + 1);
    expect(logged.some((e) => (e.type as string) === 'future thing' || e.runId === undefined)).toBe(false);
    expect(logged.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', depth: 0 });

    // Over SSE the unknown type comes as a plain message (no `event:` line) with its type kept in the data.
    const sse = await readSse(`${bed.bridge.url}/runs/${run.runId}/events`, { token: TOKEN });
    expect(sse.events.find((f) => f.data.includes('FUTURE_THING'))).toMatchObject({ event: 'message' });
    expect(withoutTimestamps(agioEvents(sse.events))).toEqual(withoutTimestamps(logged));
    // The event-log store holds it too (a reader of the finished run is served from there).
    const stored = await bed.worker.stores.events.read('default', run.runId, -1, 1000);
    expect(stored.filter(isChilds).map((e) => e.type)).toEqual(['RUN_STARTED', 'FUTURE_THING']);
  });
});
