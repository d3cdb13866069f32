// Bulk retry over HTTP and the CLI on a real worker and bridge: failed runs picked by their error type (read from each
// run's failure, no search attribute holds it) are retried from their last good step, each with its new run in the
// report; a run failing another way is left alone; the job goes on while the bridge that started it is replaced.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { defineAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { RunFailedError } from '../../client/errors';
import { request, startBridge } from '../helpers/bridge';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

const TENANT = `retry${randomUUID().slice(0, 8)}`;
const ADMIN = 'bulk-retry-admin';

describe('bulk retry', () => {
  const agent = defineAgent({ name: 'bulk-retried', instructions: 'You are bulk-retried.', tools: ['echo'] });
  const bed = useTestBed({
    tools: testTools,
    agents: [agent],
    bridge: { tokens: `${ADMIN}:${TENANT}:ops:read+start+control+admin` },
  });
  /** `agio <args>` against the test bridge as the admin token; its JSON answer. */
  const agio = async (...args: string[]) => {
    const root = path.resolve(__dirname, '../..');
    const env = { ...process.env, AGIO_URL: bed.bridge.url, AGIO_TOKEN: ADMIN };
    const run = promisify(execFile);
    return JSON.parse(
      (await run(path.join(root, 'node_modules/.bin/tsx'), ['cli/main.ts', ...args], { cwd: root, env })).stdout,
    );
  };
  const post = (body: unknown) => request(`${bed.bridge.url}/bulk`, { token: ADMIN, body });
  const failureOf = (runId: string) =>
    bed.agio
      .getHandle(runId)
      .result()
      .then(
        () => undefined,
        (err: Error) => (err instanceof RunFailedError ? err.type : err.name),
      );

  it('retries the failed runs of one error type and reports each new run', async () => {
    // Each run takes a tool turn, then fails: two on a refused request (400), one on an unauthorized one (401).
    const failing = [];
    const types = [];
    for (const status of [400, 400, 401]) {
      bed.server.script(toolCalls([toolCall('echo', { text: 'one' })]), { error: { status } });
      const run = await bed.agio.start(agent, 'go', { tenant: TENANT });
      failing.push(run);
      types.push(await failureOf(run.runId));
    }
    expect(types[0]).toBe(types[1]);
    expect(types[2]).not.toBe(types[0]);
    const errorType = types[0]!;

    const dry = await waitFor('visibility lists the failed runs', async () => {
      const { body } = await post({ action: 'retry', dryRun: true, filter: { errorType } });
      return body.matched === 2 && body;
    });
    expect(dry).toMatchObject({ filter: { status: 'failed', errorType } });
    expect(new Set(dry.sample)).toEqual(new Set([failing[0].runId, failing[1].runId]));
    expect((await post({ action: 'retry', dryRun: true, filter: { errorType: 'NoSuchError' } })).body.matched).toBe(0);
    expect(await agio('bulk', 'retry', '--error-type', errorType, '--dry-run')).toMatchObject({ matched: 2 });

    bed.server.script(text('done'), text('done'));
    const started = await post({ action: 'retry', filter: { errorType } });
    expect(started.status).toBe(202);
    // The job is the worker's, not the bridge's: another bridge answers its progress and report.
    await bed.bridge.close();
    bed.bridge = await startBridge({
      client: bed.client,
      taskQueue: bed.worker.taskQueue,
      agents: [agent],
      stores: bed.worker.stores,
      tokens: `${ADMIN}:${TENANT}:ops:read+start+control+admin`,
    });
    const report = await waitFor('the retry job ends', async () => {
      const { body } = await request(`${bed.bridge.url}/bulk/${started.body.jobId}`, { token: ADMIN });
      return body.state === 'completed' && body;
    });
    expect(report).toMatchObject({ matched: 2, done: 2, failed: 0, skipped: 0 });
    for (const outcome of report.outcomes) {
      expect(outcome.newRunId).toMatch(/^run-/);
      const output = await bed.agio.getHandle(outcome.newRunId).result();
      expect(output.response).toBe('done');
    }
    expect(report.outcomes.map((o: { runId: string }) => o.runId).sort()).toEqual(
      [failing[0].runId, failing[1].runId].sort(),
    );
    expect(await agio('bulk', 'status', started.body.jobId)).toMatchObject({ state: 'completed', done: 2 });
  });

  it('refuses a status retry cannot act on and an error type with a status other than failed', async () => {
    expect((await post({ action: 'retry', dryRun: true, filter: { status: 'running' } })).status).toBe(400);
    expect((await post({ action: 'retry', filter: { errorType: 'X', status: 'cancelled' } })).status).toBe(400);
  });
});
