// Starts in a session that has a run running (onActiveRun, workflows/jobs/session-runner.ts) on a real dev server,
// worker and bridge: reject (also two starts at once: exactly one runs), enqueue (the second starts after the first and
// continues its conversation), interrupt (the first is cancelled, its steps kept) and rollback (cancelled, its steps
// leave the session's conversation).
import { randomUUID } from 'node:crypto';
import type { RunHandle } from '../../client/agio-client';
import { defineAgent } from '../../common';
import { sessionRunnerId } from '../../common/session-runs';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { heldAnswer, sentMessages } from '../helpers/agent-runs';
import { request } from '../helpers/bridge';
import { replayHistory } from '../helpers/replay';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

const TOKEN = 'test-token';
const talker = defineAgent({ name: 'talker', instructions: 'You are talker.', tools: ['record'] });
const KEY = 'You are talker.';

/** The user messages the model was sent in request `i`. */
const userTexts = (req: { body: unknown }) =>
  sentMessages(req as Parameters<typeof sentMessages>[0])
    .filter((m) => m.role === 'user')
    .map((m) => m.content);

describe('session start strategies', () => {
  const bed = useTestBed({ tools: testTools, agents: [talker], bridge: { tokens: `${TOKEN}:default` } });
  const session = () => `s-${randomUUID()}`;

  it('reject: a second start is refused naming the running run (client and HTTP 409), then starts once it ended', async () => {
    const sessionId = session();
    const held = heldAnswer(text('first answer'));
    bed.server.scriptFor(KEY, held.answer, text('third answer'));
    const first = await bed.agio.start(talker, 'one', { sessionId, onActiveRun: 'reject' });
    await expect(bed.agio.start(talker, 'two', { sessionId, onActiveRun: 'reject' })).rejects.toMatchObject({
      name: 'SessionBusyError',
      activeRunId: first.runId,
    });
    const http = await request(`${bed.bridge.url}/runs`, {
      token: TOKEN,
      body: { agent: 'talker', input: 'two', sessionId, onActiveRun: 'reject' },
    });
    expect(http.status).toBe(409);
    expect(http.body.error).toMatchObject({ code: 'session_busy', activeRunId: first.runId });
    const noSession = await request(`${bed.bridge.url}/runs`, {
      token: TOKEN,
      body: { agent: 'talker', input: 'x', onActiveRun: 'reject' },
    });
    expect(noSession.status).toBe(400);
    held.release();
    await first.result();
    const third = await bed.agio.start(talker, 'three', { sessionId, onActiveRun: 'reject' });
    expect((await third.result()).response).toBe('third answer');
    expect(userTexts(bed.server.requests[1])).toEqual(['one', 'three']);
  });

  it('reject: of two starts at once exactly one runs', async () => {
    const sessionId = session();
    bed.server.scriptFor(KEY, text('the only answer'));
    const starts = await Promise.allSettled([
      bed.agio.start(talker, 'a', { sessionId, onActiveRun: 'reject' }),
      bed.agio.start(talker, 'b', { sessionId, onActiveRun: 'reject' }),
    ]);
    const started = starts.filter((s) => s.status === 'fulfilled');
    const refused = starts.filter((s) => s.status === 'rejected');
    expect([started.length, refused.length]).toEqual([1, 1]);
    expect((refused[0] as PromiseRejectedResult).reason.name).toBe('SessionBusyError');
    expect((await (started[0] as PromiseFulfilledResult<RunHandle>).value.result()).response).toBe('the only answer');
    expect(bed.server.requests).toHaveLength(1);
  });

  it('enqueue: the second run starts after the first ends and continues its conversation', async () => {
    const sessionId = session();
    const held = heldAnswer(text('first answer'));
    bed.server.scriptFor(KEY, held.answer, text('second answer'));
    const first = await bed.agio.start(talker, 'one', { sessionId, onActiveRun: 'enqueue' });
    const second = await bed.agio.start(talker, 'two', { sessionId, onActiveRun: 'enqueue' });
    await waitFor('the first model request', () => bed.server.requests.length === 1);
    await expect(second.workflow.describe()).rejects.toThrow(); // waits its turn: not started yet
    const streamed = second.stream(); // a handle of a run waiting its turn waits with it
    held.release();
    expect((await first.result()).response).toBe('first answer');
    expect((await second.result()).response).toBe('second answer');
    const types: string[] = [];
    for await (const e of streamed) types.push(e.type);
    expect(types[0]).toBe('RUN_STARTED');
    expect(types.at(-1)).toBe('RUN_COMPLETED');
    expect(userTexts(bed.server.requests[1])).toEqual(['one', 'two']);
    expect(sentMessages(bed.server.requests[1]).some((m) => m.content === 'first answer')).toBe(true);
  });

  it('interrupt: the running run is cancelled keeping its steps, and the new one continues the conversation', async () => {
    const sessionId = session();
    const held = heldAnswer(text('never sent'));
    bed.server.scriptFor(KEY, toolCalls([toolCall('record', { label: 'kept' })]), held.answer, text('second answer'));
    const first = await bed.agio.start(talker, 'one', { sessionId, onActiveRun: 'interrupt' });
    await waitFor('the first run to wait on its second model call', () => bed.server.requests.length === 2);
    const second = await bed.agio.start(talker, 'two', { sessionId, onActiveRun: 'interrupt' });
    await expect(first.result()).rejects.toMatchObject({ name: 'RunCancelledError' });
    expect((await second.result()).response).toBe('second answer');
    const sent = sentMessages(bed.server.requests[2]);
    expect(userTexts(bed.server.requests[2])).toEqual(['one', 'two']);
    expect(sent.some((m) => m.role === 'tool' && m.content === 'recorded kept')).toBe(true);
    held.release();
  });

  it('rollback: the running run is cancelled and its steps leave the session conversation', async () => {
    const sessionId = session();
    const held = heldAnswer(text('never sent'));
    bed.server.scriptFor(KEY, toolCalls([toolCall('record', { label: 'gone' })]), held.answer);
    bed.server.scriptFor(KEY, text('second answer'), text('third answer'));
    const first = await bed.agio.start(talker, 'one', { sessionId, onActiveRun: 'rollback' });
    await waitFor('the first run to wait on its second model call', () => bed.server.requests.length === 2);
    const second = await bed.agio.start(talker, 'two', { sessionId, onActiveRun: 'rollback' });
    await expect(first.result()).rejects.toMatchObject({ name: 'RunCancelledError' });
    expect((await second.result()).response).toBe('second answer');
    expect(userTexts(bed.server.requests[2])).toEqual(['two']);
    // Later runs of the session do not see it either; the session still lists it, marked.
    const third = await bed.agio.start(talker, 'three', { sessionId });
    await third.result();
    expect(userTexts(bed.server.requests[3])).toEqual(['two', 'three']);
    const stored = await bed.worker.stores.sessions.getSession('default', sessionId);
    expect(stored?.runs.find((r) => r.runId === first.runId)).toMatchObject({ rolledBack: true });
    await replayHistory(bed.client, sessionRunnerId('default', sessionId)); // the runner's cancel and rollback replay
    held.release();
  });
});
