// POST /runs/:id/fork on a real worker and bridge: a fork at a tool step with a replaced result and another model asks
// only that model, with the conversation up to the step and the new result; a fork at an assistant step asks it again
// with other instructions; a fork of a running run; lineage in GET /runs/:id and RUN_STARTED; bad steps are refused.
import { defineAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { heldAnswer, sentMessages } from '../helpers/agent-runs';
import { request } from '../helpers/bridge';
import { readStream } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

const TOKEN = 'fork-token';
const OTHER = 'fork-other';

describe('fork a run at a step over HTTP', () => {
  const agents = [defineAgent({ name: 'looker', instructions: 'You look things up.', tools: ['echo'] })];
  const bed = useTestBed({ tools: testTools, agents, bridge: { tokens: `${TOKEN}:default,${OTHER}:other` } });
  const call = (method: string, path: string, body?: unknown, token = TOKEN) =>
    request(`${bed.bridge.url}${path}`, { method, token, ...(body !== undefined ? { body } : {}) });

  /** A completed run: system 0, user 1, assistant 2 calling echo, tool 3 ("found"), assistant 4 ("the answer"). */
  async function completedRun(): Promise<string> {
    bed.server.script(toolCalls([toolCall('echo', { text: 'found' }, { id: 'c1' })]), text('the answer'));
    const started = await call('POST', '/runs', { agent: 'looker', input: 'look it up' });
    expect(started.status).toBe(201);
    await bed.agio.getHandle(started.body.runId).result();
    return started.body.runId as string;
  }

  it('replaces a tool result and asks another model from there', async () => {
    const source = await completedRun();
    bed.server.scriptFor('other-model', text('a better answer'));
    const forked = await call('POST', `/runs/${source}/fork`, {
      step: 3,
      edits: { toolResult: 'found something else', model: 'other-model' },
    });
    expect(forked.status).toBe(201);
    expect(forked.body).toMatchObject({ forkedFrom: source, step: 3, copiedSteps: 4 });
    const output = await bed.agio.getHandle(forked.body.runId).result();
    expect(output.response).toBe('a better answer');
    // One more model call, to the other model, with the source's conversation up to the step and the new result.
    expect(bed.server.requests).toHaveLength(3);
    const [, answered, fork] = bed.server.requests;
    expect(fork.body.model).toBe('other-model');
    const expected = sentMessages(answered).map((m) =>
      m.role === 'tool' ? { ...m, content: 'found something else' } : m,
    );
    expect(sentMessages(fork)).toEqual(expected);
    expect(output.steps[3]).toMatchObject({
      role: 'tool',
      content: 'found something else',
      metadata: { edited: true },
    });

    const events = await readStream(bed.client, forked.body.runId);
    expect(events[0]).toMatchObject({ type: 'RUN_STARTED', data: { forkedFrom: source, step: 3 } });
    expect((await call('GET', `/runs/${forked.body.runId}`)).body).toMatchObject({ forkedFrom: source, step: 3 });
  });

  it('asks an assistant step again with other instructions', async () => {
    const source = await completedRun();
    bed.server.script(text('answered anew'));
    const forked = await call('POST', `/runs/${source}/fork`, { step: 4, edits: { instructions: 'You answer anew.' } });
    expect(forked.status).toBe(201);
    expect((await bed.agio.getHandle(forked.body.runId).result()).response).toBe('answered anew');
    const sent = sentMessages(bed.server.requests[2]);
    expect(sent[0]).toEqual({ role: 'system', content: 'You answer anew.' });
    expect(sent.slice(1)).toEqual(sentMessages(bed.server.requests[1]).slice(1));
  });

  it('forks a run that is still running, at a step already recorded', async () => {
    const held = heldAnswer(text('late'));
    bed.server.script(toolCalls([toolCall('echo', { text: 'first' }, { id: 'c1' })]), held.answer);
    const running = (await call('POST', '/runs', { agent: 'looker', input: 'take your time' })).body.runId as string;
    await bed.agio.getHandle(running).waitFor('STEP_COMPLETED', { where: (e) => e.snapshot.role === 'tool' });
    // The tool turn is stored with the next model call (the one held): wait until it is asked.
    await waitFor('the second model request', () => bed.server.requests.length >= 2);
    bed.server.script(text('forked while running'));
    const forked = await call('POST', `/runs/${running}/fork`, { step: 1, edits: { userMessage: 'be quick' } });
    expect(forked.status).toBe(201);
    expect((await bed.agio.getHandle(forked.body.runId).result()).response).toBe('forked while running');
    expect(sentMessages(bed.server.requests[2]).at(-1)).toEqual({ role: 'user', content: 'be quick' });
    held.release();
    await bed.agio.getHandle(running).result();
  });

  it('refuses steps out of range, edits that do not fit, other tenants and malformed bodies', async () => {
    const source = await completedRun();
    const refused = async (body: unknown, token = TOKEN) => {
      const answer = await call('POST', `/runs/${source}/fork`, body, token);
      return [answer.status, answer.body.error?.code];
    };
    expect(await refused({ step: 5 })).toEqual([400, 'step_out_of_range']);
    expect(await refused({ step: 3 })).toEqual([400, 'step_mismatch']);
    expect(await refused({ step: 2, edits: { toolResult: 'x' } })).toEqual([400, 'step_mismatch']);
    expect(await refused({ step: -1 })).toEqual([400, 'invalid_request']);
    expect(await refused({ step: 4, edits: { toolResult: 'x'.repeat(300_000) } })).toEqual([400, 'invalid_request']);
    expect(await refused({ step: 4, edits: { temperature: 1 } })).toEqual([400, 'invalid_request']);
    expect(await refused({ step: 4, limits: { maxSteps: 500 } })).toEqual([400, 'limit_above_agent']);
    expect(await refused({ step: 4 }, OTHER)).toEqual([404, 'run_not_found']);
    expect((await call('POST', '/runs/run-nope/fork', { step: 1 })).status).toBe(404);
  });
});
