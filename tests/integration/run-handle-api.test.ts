// RunHandle as a backend uses it, on a real dev server and worker: waitFor an event (typed data, a test, one run of the
// tree), Agio's errors instead of Temporal's (failed, cancelled, not found, closed), and one lowercase status
// vocabulary over HTTP (GET /runs/:id and /state agree).
import { WorkflowFailedError } from '@temporalio/client';
import {
  RunCancelledError,
  RunClosedError,
  RunFailedError,
  RunNotFoundError,
  isRunFailure,
  type AgioEvent,
} from '../../client';
import { ErrorType, defineAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { askingAgent, keyOf, delegatingAgent } from '../helpers/approvals';
import { request } from '../helpers/bridge';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

const TOKEN = 'api-token';

/** What a promise rejected with (undefined when it resolved). */
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err,
  );

describe('RunHandle for a backend', () => {
  const bed = useTestBed({ tools: testTools, bridge: { tokens: `${TOKEN}:default` } });
  const get = async (path: string) => (await request(`${bed.bridge.url}${path}`, { token: TOKEN })).body;

  it('waitFor resolves with the first matching event, typed, and rejects once the run ended without one', async () => {
    const agent = askingAgent('waiting-asker');
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'one' }, { id: 'call_one' })]),
      text('recorded'),
    );
    const run = await bed.agio.start(agent, 'record one');

    const asked = await run.waitFor('TOOL_AUTH_REQUIRED', { where: (e) => e.data.tool === 'record' });
    // Typed data: tool, toolCallId and args without a cast.
    expect([asked.data.tool, asked.data.toolCallId, asked.data.args]).toEqual(['record', 'call_one', { label: 'one' }]);
    await run.approve(asked.data.toolCallId);
    const done = await run.waitFor('RUN_COMPLETED', { runId: run.runId });
    expect(done.data.response).toBe('recorded');

    // Read from the log's start: an event that happened before the call is found at once.
    expect((await run.waitFor('TOOL_AUTH_GRANTED')).data).toMatchObject({ toolCallId: 'call_one', remember: false });
    const never = await rejection(run.waitFor('RUN_PAUSED'));
    expect(never).toBeInstanceOf(RunClosedError);
    expect(never).toMatchObject({ name: 'RunClosedError', type: 'RunClosed', runId: run.runId, status: 'completed' });
    const elsewhere = await rejection(run.waitFor('STEP_COMPLETED', { runId: `${run.runId}/tool/0-nothing` }));
    expect(elsewhere).toBeInstanceOf(RunClosedError);
  });

  it("waitFor with runId waits for one nested run's event, and rejects once that run has ended without it", async () => {
    const child = askingAgent('nested-asker');
    const lead = delegatingAgent('nested-lead', child, 'Delegates to nested-asker.');
    bed.server.scriptFor(
      keyOf(lead),
      toolCalls([toolCall('nested-asker', { task: 'record' }, { id: 'call_c' })]),
      text('lead done'),
    );
    bed.server.scriptFor(
      keyOf(child),
      toolCalls([toolCall('record', { label: 'deep' }, { id: 'call_r' })]),
      text('child done'),
    );
    const run = await bed.agio.start(lead, 'delegate');
    const childId = `${run.runId}/tool/3-call_c`;

    const asked = await run.waitFor('TOOL_AUTH_REQUIRED', { runId: childId });
    expect(asked).toMatchObject({ runId: childId, depth: 1, data: { tool: 'record', workflowId: childId } });
    await run.approve(asked.data.toolCallId);
    expect((await run.waitFor('RUN_COMPLETED', { runId: childId })).data.response).toBe('child done');
    expect((await run.waitFor('RUN_COMPLETED')).runId).toBe(childId); // the first of the tree: the child's
    expect(await rejection(run.waitFor('RUN_PAUSED', { runId: childId }))).toMatchObject({
      name: 'RunClosedError',
      runId: childId,
      status: 'completed',
    });
    expect((await run.result()).response).toBe('lead done');
  });

  it('rejects result() of a failed run with RunFailedError carrying the Agio error type; HTTP says failed', async () => {
    const run = await bed.agio.start(defineAgent({ name: 'ill-equipped', tools: ['no_such_tool'] }), 'hello');

    const err = await rejection(run.result());

    expect(err).toBeInstanceOf(RunFailedError);
    expect(err).toMatchObject({ name: 'RunFailedError', type: ErrorType.UnknownTool, runId: run.runId });
    expect((err as RunFailedError).message).toContain('no_such_tool');
    // Temporal's error stays reachable: the failure is its cause, and code written against WorkflowFailedError works.
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as RunFailedError).cause).toMatchObject({ type: ErrorType.UnknownTool });
    expect(isRunFailure(err)).toBe(true);
    expect(await get(`/runs/${run.runId}`)).toMatchObject({ status: 'failed', error: { type: ErrorType.UnknownTool } });
    expect(await get(`/runs/${run.runId}/state`)).toMatchObject({ status: 'failed' });
  });

  it('rejects result() of a run terminated in Temporal with RunFailedError of type Terminated; HTTP says terminated', async () => {
    const agent = askingAgent('terminated-asker');
    bed.server.scriptFor(keyOf(agent), toolCalls([toolCall('record', { label: 'never' }, { id: 'call_t' })]));
    const run = await bed.agio.start(agent, 'record nothing');
    await run.waitFor('TOOL_AUTH_REQUIRED');

    await run.workflow.terminate('an operator ended it');
    const err = await rejection(run.result());

    expect(err).toMatchObject({ name: 'RunFailedError', type: ErrorType.Terminated, runId: run.runId });
    expect(await get(`/runs/${run.runId}`)).toMatchObject({ status: 'terminated' });
    const end = await run.waitFor('RUN_FAILED', { runId: run.runId });
    expect(end.data).toMatchObject({ error: { type: ErrorType.Terminated }, synthetic: true, status: 'terminated' });
  });

  it('rejects result() of a cancelled run with RunCancelledError, and control of the ended run with RunClosedError', async () => {
    const agent = askingAgent('cancelled-asker');
    bed.server.scriptFor(keyOf(agent), toolCalls([toolCall('record', { label: 'never' }, { id: 'call_never' })]));
    const run = await bed.agio.start(agent, 'record nothing');
    await run.waitFor('TOOL_AUTH_REQUIRED');

    await run.cancel();
    const err = await rejection(run.result());

    expect(err).toBeInstanceOf(RunCancelledError);
    expect(err).toMatchObject({ name: 'RunCancelledError', type: 'Cancelled', runId: run.runId });
    expect(isRunFailure(err)).toBe(true);
    for (const control of [() => run.pause(), () => run.resume({}, { wait: false })]) {
      const closed = await rejection(control());
      expect(closed).toBeInstanceOf(RunClosedError);
      expect(closed).toMatchObject({ name: 'RunClosedError', runId: run.runId, status: 'cancelled' });
    }
    // A repeated cancel is harmless (Temporal keeps the first request).
    await expect(run.cancel()).resolves.toBeUndefined();
    expect(await get(`/runs/${run.runId}`)).toMatchObject({ status: 'cancelled' });
    expect(await get(`/runs/${run.runId}/state`)).toMatchObject({ status: 'cancelled' });
  });

  it('answers a run id that names no run with RunNotFoundError from result, state, pause, cancel and stream', async () => {
    const missing = bed.agio.getHandle('run-that-never-was');
    const calls: (() => Promise<unknown>)[] = [
      () => missing.result(),
      () => missing.state(),
      () => missing.pause(),
      () => missing.cancel(),
      async () => {
        const events: AgioEvent[] = [];
        for await (const e of missing.stream()) events.push(e);
        return events;
      },
    ];
    for (const call of calls) {
      const err = await rejection(call());
      expect(err).toBeInstanceOf(RunNotFoundError);
      expect(err).toMatchObject({ name: 'RunNotFoundError', type: 'RunNotFound', runId: 'run-that-never-was' });
      expect(isRunFailure(err)).toBe(false);
    }
  });

  it('says completed in GET /runs, GET /runs/:id and /state alike (any case filters), and refuses control with RunClosedError', async () => {
    bed.server.script(text('fine'));
    const run = await bed.agio.start(defineAgent({ name: 'plain-answerer' }), 'hi');
    await run.result();

    expect(await get(`/runs/${run.runId}`)).toMatchObject({ status: 'completed' });
    expect(await get(`/runs/${run.runId}/state`)).toMatchObject({ status: 'completed' });
    for (const control of [() => run.pause(), () => run.cancel()])
      expect(await rejection(control())).toMatchObject({ name: 'RunClosedError', status: 'completed' });
    const listed = async (query: string) =>
      ((await get(`/runs?agent=plain-answerer${query}`)).runs as { runId: string; status: string }[]) ?? [];
    await waitFor('visibility to list the closed run', async () => (await listed('&status=completed')).length);
    expect(await listed('&status=completed')).toEqual([
      expect.objectContaining({ runId: run.runId, status: 'completed' }),
    ]);
    expect(await listed('&status=COMPLETED')).toEqual(await listed('&status=completed'));
  });
});
