// POST /runs/:id/retry on a real worker and bridge: a run that failed at its third model call is retried from its last
// completed step. The retry makes only the model call that failed (the scripted server counts them), sends the same
// conversation, completes, and both runs show the link (GET /runs/:id, the list, RUN_STARTED); bad requests are
// refused.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { defineAgent, type AgioEvent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { heldAnswer, sentMessages } from '../helpers/agent-runs';
import { request } from '../helpers/bridge';
import { readStream } from '../helpers/nested-runs';
import { replayHistory } from '../helpers/replay';
import { useTestBed } from '../helpers/test-bed';
import { waitUntil } from '../../devkit/free-port';
import { waitFor } from '../helpers/workflow-agents';

const TOKEN = 'retry-token';
const OTHER = 'retry-other';
const READER = 'retry-reader';

describe('retry a run from its last good step over HTTP', () => {
  const agents = [
    defineAgent({ name: 'steady', instructions: 'You are steady.', tools: ['echo'], limits: { maxSteps: 20 } }),
  ];
  const bed = useTestBed({
    tools: testTools,
    agents,
    bridge: { tokens: `${TOKEN}:default,${OTHER}:other,${READER}:default:reader:read` },
  });
  const call = (method: string, path: string, body?: unknown, token = TOKEN) =>
    request(`${bed.bridge.url}${path}`, { method, token, ...(body !== undefined ? { body } : {}) });
  const runEnd = (runId: string) =>
    bed.agio
      .getHandle(runId)
      .result()
      .then(
        () => 'completed',
        (err: Error) => err.name,
      );

  /** A run of `steady` that makes two tool turns and fails at its third model call (HTTP 400: not retried). */
  async function failedRun(): Promise<string> {
    bed.server.script(
      toolCalls([toolCall('echo', { text: 'one' }, { id: 'c1' })]),
      toolCalls([toolCall('echo', { text: 'two' }, { id: 'c2' })]),
      { error: { status: 400 } },
    );
    const started = await call('POST', '/runs', { agent: 'steady', input: 'count to three' });
    expect(started.status).toBe(201);
    expect(await runEnd(started.body.runId)).toBe('RunFailedError');
    return started.body.runId as string;
  }

  it('makes only the remaining model calls, with the same conversation, and both runs show the link', async () => {
    const source = await failedRun();
    expect(bed.server.requests).toHaveLength(3);
    bed.server.script(text('three'));
    const retried = await call('POST', `/runs/${source}/retry`, {});
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ retriedFrom: source, copiedSteps: 6 });
    const runId = retried.body.runId as string;
    const output = await bed.agio.getHandle(runId).result();
    expect(output.response).toBe('three');
    // One model call, not four: the one that failed, with the conversation the failed call had.
    expect(bed.server.requests).toHaveLength(4);
    expect(sentMessages(bed.server.requests[3])).toEqual(sentMessages(bed.server.requests[2]));
    expect(output.metrics.modelCalls).toBe(1);
    expect(output.steps.map((s) => [s.index, s.role, s.runId])).toEqual(
      ['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'].map((role, i) => [i, role, runId]),
    );
    expect(output.steps[3].metadata).toMatchObject({ copiedFrom: `${source}:3` });
    // The seeded start is deterministic: the retry's own history replays.
    await replayHistory(bed.client, runId);

    const events: AgioEvent[] = await readStream(bed.client, runId);
    expect(events[0]).toMatchObject({ type: 'RUN_STARTED', data: { retriedFrom: source } });
    expect(events.filter((e) => e.type === 'STEP_COMPLETED')).toHaveLength(7);

    expect((await call('GET', `/runs/${runId}`)).body).toMatchObject({ status: 'completed', retriedFrom: source });
    // The source shows its retry once visibility has it.
    let sourceView = await call('GET', `/runs/${source}`);
    await waitUntil(
      async () => {
        sourceView = await call('GET', `/runs/${source}`);
        if (!sourceView.body.rescues) throw new Error('not listed yet');
      },
      'the retry in its source run',
      15_000,
    );
    expect(sourceView.body).toMatchObject({ status: 'failed', rescues: [{ runId, retriedFrom: source }] });
    const listed = await call('GET', '/runs?agent=steady');
    expect(listed.body.runs.find((r: { runId: string }) => r.runId === runId)).toMatchObject({ retriedFrom: source });
    expect(listed.body.runs.find((r: { runId: string }) => r.runId === source).retriedFrom).toBeUndefined();
  });

  it('applies overrides within what the token may set', async () => {
    const source = await failedRun();
    const above = await call('POST', `/runs/${source}/retry`, { limits: { maxSteps: 50 } });
    expect(above.status).toBe(400);
    expect(above.body.error).toMatchObject({ code: 'limit_above_agent', limit: 'maxSteps' });
    expect((await call('POST', `/runs/${source}/retry`, { modelSettings: { temperature: 9 } })).status).toBe(400);
    expect((await call('POST', `/runs/${source}/retry`, { bogus: 1 })).status).toBe(400);
    const allow = await call('POST', `/runs/${source}/retry`, { permissions: [{ tool: 'echo', action: 'allow' }] });
    expect(allow.body.error.code).toBe('permission_override_refused');
    bed.server.scriptFor('other-model', text('three again'));
    const retried = await call('POST', `/runs/${source}/retry`, {
      model: 'other-model',
      modelSettings: { temperature: 0.5 },
      limits: { maxSteps: 10 },
    });
    expect(retried.status).toBe(201);
    expect((await bed.agio.getHandle(retried.body.runId).result()).response).toBe('three again');
    expect(bed.server.requests[3].body).toMatchObject({ model: 'other-model', temperature: 0.5 });
  });

  it('retries a retry that failed too: the retry stored the steps it copied', async () => {
    const source = await failedRun();
    bed.server.script({ error: { status: 400 } });
    const first = (await call('POST', `/runs/${source}/retry`, {})).body.runId as string;
    expect(await runEnd(first)).toBe('RunFailedError');
    bed.server.script(text('third time'));
    const second = await call('POST', `/runs/${first}/retry`, {});
    expect(second.body).toMatchObject({ retriedFrom: first, copiedSteps: 6 });
    expect((await bed.agio.getHandle(second.body.runId).result()).response).toBe('third time');
    expect(bed.server.requests).toHaveLength(5);
    expect(sentMessages(bed.server.requests[4])).toEqual(sentMessages(bed.server.requests[2]));
  });

  it('retries a cancelled run from the step it had reached', async () => {
    const held = heldAnswer(text('never read'));
    bed.server.script(toolCalls([toolCall('echo', { text: 'one' }, { id: 'c1' })]), held.answer);
    const source = (await call('POST', '/runs', { agent: 'steady', input: 'slowly' })).body.runId as string;
    await waitFor('the second model request', () => bed.server.requests.length >= 2);
    expect((await call('POST', `/runs/${source}/cancel`, {})).status).toBeLessThan(300);
    expect(await runEnd(source)).toBe('RunCancelledError');
    held.release();
    bed.server.script(text('resumed'));
    const retried = await call('POST', `/runs/${source}/retry`, {});
    expect(retried.body).toMatchObject({ retriedFrom: source, copiedSteps: 4 });
    expect((await bed.agio.getHandle(retried.body.runId).result()).response).toBe('resumed');
    expect(sentMessages(bed.server.requests[2])).toEqual(sentMessages(bed.server.requests[1]));
  });

  it('refuses unknown runs, other tenants, running and completed runs, and tokens without the start scope', async () => {
    expect((await call('POST', '/runs/run-nope/retry', {})).body.error.code).toBe('run_not_found');
    const source = await failedRun();
    const other = await call('POST', `/runs/${source}/retry`, {}, OTHER);
    expect([other.status, other.body.error.code]).toEqual([404, 'run_not_found']);
    expect((await call('POST', `/runs/${source}/retry`, {}, READER)).status).toBe(403);

    const held = heldAnswer(text('late'));
    bed.server.script(held.answer);
    const running = (await call('POST', '/runs', { agent: 'steady', input: 'wait' })).body.runId as string;
    const refused = await call('POST', `/runs/${running}/retry`, {});
    expect([refused.status, refused.body.error.code]).toEqual([409, 'run_running']);
    held.release();
    expect(await runEnd(running)).toBe('completed');
    const completed = await call('POST', `/runs/${running}/retry`, {});
    expect([completed.status, completed.body.error.code]).toEqual([409, 'run_completed']);
  });

  it('is driven from the CLI: agio retry', async () => {
    const source = await failedRun();
    bed.server.script(text('three from the cli'));
    const root = path.resolve(__dirname, '../..');
    const { stdout } = await promisify(execFile)(
      path.join(root, 'node_modules/.bin/tsx'),
      ['cli/main.ts', 'retry', source, '--max-steps', '10', '--temperature', '0.2'],
      { cwd: root, env: { ...process.env, AGIO_URL: bed.bridge.url, AGIO_TOKEN: TOKEN } },
    );
    const retried = JSON.parse(stdout) as { runId: string; retriedFrom: string };
    expect(retried.retriedFrom).toBe(source);
    expect((await bed.agio.getHandle(retried.runId).result()).response).toBe('three from the cli');
    expect(bed.server.requests[3].body).toMatchObject({ temperature: 0.2 });
  });
});
