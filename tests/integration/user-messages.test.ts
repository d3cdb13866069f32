// Messages to running runs on a real dev server, worker and bridge (workflows/lifecycle/user-messages.ts): an enqueued
// message is read before the next model call (in order, across continue-as-new and a worker restart), an interrupt
// cancels the model call streaming now and asks again with the message, a closed run or a workflow agent refuses, and a
// nested run takes a message sent to its own run id.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { asTool, defineAgent, sequentialAgent, type AgentSpec, type AgioEvent } from '../../common';
import { text, toolCall, toolCalls, type RecordedRequest } from '../../devkit/scripted-model-server';
import { INTERRUPTED_ATTEMPT } from '../../workflows/lifecycle/user-messages';
import { testTools } from '../fixtures/test-tools';
import { heldAnswer, sentMessages } from '../helpers/agent-runs';
import { request } from '../helpers/bridge';
import { readStream, requestsOf, waitForEvent } from '../helpers/nested-runs';
import { startTestWorker } from '../helpers/temporal';
import { replayHistory } from '../helpers/replay';
import { useTestBed } from '../helpers/test-bed';
import { runChain, waitFor } from '../helpers/workflow-agents';

const TOKEN = 'test-token';

const agent = (name: string, extra: Partial<Parameters<typeof defineAgent>[0]> = {}): AgentSpec =>
  defineAgent({ name, instructions: `You are ${name}.`, tools: ['record'], ...extra });

/** The user messages of a request after its first (the run's input). */
const laterUserTexts = (req: RecordedRequest) =>
  sentMessages(req)
    .filter((m) => m.role === 'user')
    .slice(1)
    .map((m) => m.content);

describe('messages to running runs', () => {
  const bed = useTestBed({
    tools: testTools,
    bridge: { tokens: `${TOKEN}:default:alice,elsewhere:other,reader:default:dash:read` },
  });
  const post = (runId: string, body: unknown, token = TOKEN) =>
    request(`${bed.bridge.url}/runs/${encodeURIComponent(runId)}/messages`, { token, body });

  it('enqueues two messages during a model call: read in order after the tool call, across continue-as-new', async () => {
    const coder = agent('coder-enqueue', { limits: { continueAsNewAfterModelCalls: 1 } });
    const first = heldAnswer(toolCalls([toolCall('record', { label: 'one' })]));
    bed.server.scriptFor(`You are ${coder.name}.`, first.answer, text('done'));
    const sessionId = `s-${Date.now()}`;
    const run = await bed.agio.start(coder, 'write the code', { sessionId });
    await waitFor('the first model request', () => bed.server.requests.length === 1);
    const a = await post(run.runId, { text: 'also add tests', messageId: 'm-1' });
    const b = await post(run.runId, { text: 'and docs' });
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(a.body).toMatchObject({ runId: run.runId, messageId: 'm-1', mode: 'enqueue' });
    // The same id again is answered as the first time, not queued twice.
    expect((await post(run.runId, { text: 'also add tests', messageId: 'm-1' })).body).toEqual(a.body);
    first.release();
    const out = await run.result();
    const [, second] = bed.server.requests;
    const roles = sentMessages(second).map((m) => m.role);
    expect(roles.slice(-4)).toEqual(['assistant', 'tool', 'user', 'user']);
    expect(laterUserTexts(second)).toEqual(['also add tests', 'and docs']);
    const userSteps = out.steps.filter((s) => s.metadata?.userMessage);
    expect(userSteps.map((s) => [s.content, (s.metadata!.userMessage as { by?: string }).by])).toEqual([
      ['also add tests', 'alice'],
      ['and docs', 'alice'],
    ]);
    const events = await readStream(bed.client, run.runId);
    expect(events.filter((e) => e.type === 'USER_MESSAGE').map((e) => e.data)).toEqual([
      { messageId: 'm-1', text: 'also add tests', mode: 'enqueue', by: 'alice' },
      expect.objectContaining({ text: 'and docs', mode: 'enqueue', by: 'alice' }),
    ]);
    expect(out.metrics.modelCalls).toBe(2);
    expect((await runChain(bed.client, run.runId)).length).toBeGreaterThan(1); // the queue crossed continue-as-new
    // The session's conversation (what its next run starts from) holds them too.
    const conversation = await bed.worker.stores.sessions.loadConversation('default', sessionId);
    expect(conversation.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'write the code',
      'also add tests',
      'and docs',
    ]);
  });

  it('interrupts a slow streaming answer: the call is cancelled and asked again with the message', async () => {
    // Heartbeats every second, so the worker learns of the cancel soon; the answer would stream for 15 s.
    const coder = agent('coder-interrupt', { limits: { modelHeartbeatTimeoutMs: 2000 } });
    bed.server.scriptFor(
      `You are ${coder.name}.`,
      text('a long and slow answer that the user will cut short before it ends '.repeat(3), {
        chunkSize: 2,
        delayMs: 150,
      }),
      text('answer with the message'),
    );
    const chunk = new Promise<void>((resolve) => (bed.server.onChunk = (c) => c.chunkIndex === 3 && resolve()));
    const run = await bed.agio.start(coder, 'explain');
    await chunk;
    const accepted = await run.message('stop, explain it shorter', { mode: 'interrupt' });
    expect(accepted).toMatchObject({ mode: 'interrupt', interrupted: true });
    const out = await run.result();
    expect(out.response).toBe('answer with the message');
    expect(out.metrics.modelCalls).toBe(1);
    await waitFor('the interrupted call to close its request', () => bed.server.abandoned.includes(0), 10_000);
    const [, second] = bed.server.requests;
    expect(laterUserTexts(second)).toEqual(['stop, explain it shorter']);
    expect(sentMessages(second).some((m) => m.role === 'assistant')).toBe(false);
    const events = await readStream(bed.client, run.runId);
    const retry = events.find((e) => e.type === 'STEP_RETRY');
    expect(retry).toMatchObject({ stepId: `${run.runId}:2`, attempt: INTERRUPTED_ATTEMPT });
    const types = events.map((e) => e.type);
    expect(types.indexOf('USER_MESSAGE')).toBeLessThan(types.indexOf('STEP_RETRY'));
    await replayHistory(bed.client, run.runId); // the interrupt replays deterministically
  });

  it('refuses a closed run (409), a workflow agent (409), a foreign tenant (404), a bad body (400) and a read-only token (403)', async () => {
    const done = agent('coder-closed');
    bed.server.scriptFor(`You are ${done.name}.`, text('finished'));
    const run = await bed.agio.start(done, 'quick');
    await run.result();
    const closed = await post(run.runId, { text: 'too late' });
    expect(closed.status).toBe(409);
    expect(closed.body.error.code).toBe('run_not_running');
    await expect(run.message('too late')).rejects.toMatchObject({ name: 'RunClosedError' });

    const step = agent('seq-step');
    const held = heldAnswer(text('step done'));
    bed.server.scriptFor(`You are ${step.name}.`, held.answer);
    const seq = await bed.agio.start(sequentialAgent({ name: 'seq-msg', subAgents: [step] }), 'go');
    const refused = await post(seq.runId, { text: 'hello' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('message_refused');
    expect(refused.body.error.message).toMatch(/workflow agent/);
    expect((await post(seq.runId, { text: '' })).status).toBe(400);
    expect((await post(seq.runId, { text: 'x' }, 'elsewhere')).status).toBe(404);
    expect((await post(seq.runId, { text: 'x' }, 'reader')).status).toBe(403);
    expect((await post(seq.runId, { text: 'x', mode: 'shout' })).status).toBe(400);
    held.release();
    await seq.result();
  });

  it('sends a message to a nested run by its own run id', async () => {
    const child = agent('msg-child');
    const parent = defineAgent({
      name: 'msg-parent',
      instructions: 'You are msg-parent.',
      tools: [asTool(child, { description: 'Delegates to msg-child.' })],
    });
    const held = heldAnswer(toolCalls([toolCall('record', { label: 'child' })]));
    bed.server.scriptFor(
      'You are msg-parent.',
      toolCalls([toolCall('msg-child', { task: 'work' })]),
      text('parent done'),
    );
    bed.server.scriptFor('You are msg-child.', held.answer, text('child done'));
    const run = await bed.agio.start(parent, 'delegate');
    const started = await waitForEvent(
      bed.client,
      run.runId,
      (e: AgioEvent) => e.type === 'RUN_STARTED' && e.depth === 1,
    );
    const res = await post(started.runId, { text: 'child, hurry' });
    expect(res.status).toBe(202);
    held.release();
    await run.result();
    const childRequests = requestsOf(bed.server, 'You are msg-child.');
    expect(laterUserTexts(childRequests[1])).toEqual(['child, hurry']);
    expect(requestsOf(bed.server, 'You are msg-parent.').every((r) => laterUserTexts(r).length === 0)).toBe(true);
  });

  it('keeps a queued message (sent with agio message) across a worker restart (paused run)', async () => {
    const coder = agent('coder-restart');
    bed.server.scriptFor(`You are ${coder.name}.`, toolCalls([toolCall('record', { label: 'x' })]), text('done'));
    // A second worker on the same task queue takes over once the first has stopped.
    const run = await bed.agio.start(coder, 'start', {});
    await run.pause({ reason: 'hold' });
    const root = path.resolve(__dirname, '../..');
    const env = { ...process.env, AGIO_URL: bed.bridge.url, AGIO_TOKEN: TOKEN };
    const cli = ['cli/main.ts', 'message', run.runId, 'read me', 'after the restart'];
    const { stdout } = await promisify(execFile)(path.join(root, 'node_modules/.bin/tsx'), cli, { cwd: root, env });
    const { messageId } = JSON.parse(stdout);
    expect(JSON.parse(stdout)).toMatchObject({ runId: run.runId, mode: 'enqueue' });
    expect((await run.state()).queuedMessages).toEqual([messageId]);
    await bed.worker.stop();
    const second = await startTestWorker({
      taskQueue: bed.worker.taskQueue,
      stores: bed.worker.stores,
      model: bed.model(),
      tools: testTools,
    });
    bed.worker = second;
    await run.resume();
    await run.result();
    const last = requestsOf(bed.server, `You are ${coder.name}.`).at(-1)!;
    expect(laterUserTexts(last)).toEqual(['read me after the restart']);
  });
});
