// The production shape under faults: Temporal on PostgreSQL, FerretDB on the same PostgreSQL, NATS, two built worker
// processes and two bridge processes configured by environment variables alone (devkit/production-stack.ts). A client
// follows a nested run through a bridge that is SIGKILLed mid-stream and resumes on the other; a worker is SIGKILLed
// mid model call; PostgreSQL restarts mid-run. Every run completes, and clients get every event exactly once.
import { type AgioEvent } from '../../common';
import { CONDENSATION_MARKER } from '../../workflows/agent-loop/condensation';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { authData } from '../helpers/approvals';
import { request } from '../helpers/bridge';
import { expectWholeLogs, requestsOf, waitForEvent } from '../helpers/nested-runs';
import {
  TOKEN,
  activityWorkers,
  buildIdOf,
  followRun,
  startRunOn,
  useProductionStack,
  workerOfPendingActivity,
  workflowTaskWorkers,
} from '../helpers/production-stack';
import { agioEvents, type SseEvent } from '../helpers/sse-client';
import { waitFor } from '../helpers/workflow-agents';

/** A long answer, streamed in small chunks: several seconds of deltas to kill a bridge in. */
const words = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');

/** Reads per branch of the 5-branch tree: the full size is 2,000, the suite's default keeps it quick. */
const TREE_READS = Number(process.env.AGIO_PRODUCTION_TREE_READS ?? 100);
/** How long the tree's stream is followed: 20 min, or a second per read a branch makes at the full size. */
const TREE_FOLLOW_MS = Math.max(20 * 60_000, TREE_READS * 1000);

/** The durable events among the frames (deltas left out), checking each arrived once and in order. */
function durableOnce(frames: SseEvent[]): AgioEvent[] {
  expect(new Set(frames.map((f) => f.id)).size).toBe(frames.length);
  const durable = agioEvents(frames).filter((e) => e.type !== 'STEP_DELTA');
  // Every run's log whole and once, in order (a nested run keeps its own log, with its own offsets).
  expectWholeLogs(durable);
  return durable;
}

/** The final answer of the root: its last assistant step's content. */
function rootAnswer(events: AgioEvent[]): string | undefined {
  return (
    events.filter((e) => e.type === 'STEP_COMPLETED' && e.depth === 0 && e.snapshot?.role === 'assistant').at(-1)
      ?.snapshot?.content ?? undefined
  );
}

describe('the production shape', () => {
  const bed = useProductionStack();
  afterEach(() => bed.model.reset());

  it('resumes a nested run on the second bridge when the first is SIGKILLed mid-stream, every event once', async () => {
    const { stack, model } = bed;
    const helperAnswer = words('h', 120);
    model.scriptFor(
      'You are lead.',
      toolCalls([toolCall('helper', { task: 'count' })]),
      text('lead done', { chunkSize: 3, delayMs: 20 }),
    );
    model.scriptFor('You are helper.', text(helperAnswer, { chunkSize: 4, delayMs: 40 }));
    const [first, second] = stack.bridges;
    const runId = await startRunOn(first, 'lead', 'start');
    let killed: Promise<unknown> | undefined;
    const nestedDeltas = (frames: SseEvent[]) =>
      agioEvents(frames).filter((e) => e.type === 'STEP_DELTA' && e.depth === 1).length;
    const seen: SseEvent[] = [];
    const { frames, connections } = await followRun(
      runId,
      // The killed bridge drops out of the list; the client goes on with the other one.
      () => stack.bridges.filter((b) => b !== first || !killed),
      (frame) => {
        seen.push(frame);
        if (!killed && nestedDeltas([frame]) && nestedDeltas(seen) >= 10) killed = stack.kill(first);
      },
    );
    await killed;
    expect(killed).toBeDefined();
    expect(connections).toBeGreaterThanOrEqual(2);

    const durable = durableOnce(frames);
    expect(durable.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', depth: 0, runId });
    expect(rootAnswer(durable)).toBe('lead done');
    // The nested run's events reached the client through the root's stream, its answer whole.
    const nested = durable.filter((e) => e.depth === 1);
    expect(nested.some((e) => e.type === 'RUN_COMPLETED')).toBe(true);
    // Its deltas too, each once across the two connections: together they spell the answer.
    const deltas = agioEvents(frames).filter((e) => e.type === 'STEP_DELTA' && e.depth === 1);
    expect(deltas.map((e) => e.delta?.content ?? '').join('')).toBe(helperAnswer);
    // A fresh reader on the surviving bridge gets the same durable logs (runs' logs may interleave differently).
    const { frames: again } = await followRun(runId, () => [second]);
    const key = (e: AgioEvent) => `${e.runId}#${String(e.offset).padStart(8, '0')} ${e.type}`;
    expect(durableOnce(again).map(key).sort()).toEqual(durable.map(key).sort());
    // A replacement keeps the stack at two bridges for the tests that follow.
    expect(stack.bridges).toEqual([second]);
    await stack.startBridge();
  }, 240_000);

  it('finishes a run on the other worker when the one in its model call is SIGKILLed', async () => {
    const { stack, model, client } = bed;
    // The first call never answers (its worker dies); the retry on the other worker gets the answer.
    model.scriptFor('You are solo.', { hangMs: 600_000, content: 'lost' }, text('solo answer'));
    const runId = await startRunOn(stack.bridges[0], 'solo', 'hello');
    await waitFor('the model call to start', () => requestsOf(model, 'You are solo.').length === 1, 60_000);
    const pid = await waitFor('the model call on a worker', () => workerOfPendingActivity(client, runId, 'callModel'));
    const victim = stack.workers.find((w) => w.pid === pid);
    expect(victim).toBeDefined();
    const killedAt = Date.now();
    expect(await stack.kill(victim!)).toEqual({ code: null, signal: 'SIGKILL' });

    const { frames } = await followRun(runId, () => stack.bridges);
    const durable = durableOnce(frames);
    expect(durable.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', depth: 0, runId });
    expect(rootAnswer(durable)).toBe('solo answer');
    expect(requestsOf(model, 'You are solo.')).toHaveLength(2);
    console.log(`model call resumed ${requestsOf(model, 'You are solo.')[1].receivedAt - killedAt} ms after the kill`);
    // The run's last model call started on the surviving worker.
    const history = await client.workflow.getHandle(runId).fetchHistory();
    const starts = (history.events ?? []).filter((e) => e.activityTaskStartedEventAttributes);
    const survivor = stack.workers.find((w) => w !== victim)!;
    expect(starts.at(-1)?.activityTaskStartedEventAttributes?.identity).toMatch(new RegExp(`^${survivor.pid}@`));
    // A replacement keeps the stack at two workers for the tests that follow.
    await stack.startWorker();
  }, 240_000);

  it('reads on the other worker a file written on a worker that was then SIGKILLed', async () => {
    const { stack, model, client } = bed;
    let runId = '';
    let writerPid: number | undefined;
    const lastMessage = (body: { messages: { content?: unknown }[] }) => JSON.stringify(body.messages.at(-1));
    // One responder for every turn, by what the conversation holds: a model call lost with the killed worker is
    // asked again and gets the same answer.
    const turn = async (req: { body: { messages: { content?: unknown }[] } }) => {
      const last = lastMessage(req.body);
      if (last.includes('kept across workers')) return text('read it back');
      if (!last.includes('bytes'))
        return toolCalls([toolCall('file_write', { path: 'n/a.txt', content: 'kept across workers' })]);
      if (writerPid === undefined) {
        [writerPid] = await activityWorkers(client, runId, 'runTool');
        await stack.kill(stack.workers.find((w) => w.pid === writerPid)!);
      }
      return toolCalls([toolCall('file_read', { path: 'n/a.txt' })]);
    };
    model.scriptFor('You are writer.', ...Array.from({ length: 6 }, () => turn));
    runId = await startRunOn(stack.bridges[0], 'writer', 'write, then read');
    const durable = durableOnce((await followRun(runId, () => stack.bridges)).frames);
    expect(durable.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', depth: 0, runId });
    expect(rootAnswer(durable)).toBe('read it back');
    // file_write (an activity) ran on the worker killed before file_read (a local activity of the workflow task):
    // the survivor ran the rest and read what the killed one wrote.
    expect(await activityWorkers(client, runId, 'runTool')).toEqual([writerPid]);
    expect(stack.workers.map((w) => w.pid)).not.toContain(writerPid);
    expect((await workflowTaskWorkers(client, runId)).at(-1)).not.toBe(writerPid);
    await stack.startWorker();
  }, 240_000);

  it('completes a run whose PostgreSQL restarts in the middle of it', async () => {
    const { stack, model } = bed;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    model.scriptFor(
      'You are lister.',
      async () => {
        await gate;
        return toolCalls([toolCall('ls', { path: '.' })]);
      },
      text('listed'),
    );
    const runId = await startRunOn(stack.bridges.at(-1)!, 'lister', 'list your workspace');
    const following = followRun(runId, () => stack.bridges);
    await waitFor('the model call to start', () => requestsOf(model, 'You are lister.').length === 1, 60_000);
    const t0 = Date.now();
    await stack.restartPostgres();
    console.log(`PostgreSQL restarted in ${Date.now() - t0} ms`);
    release();

    const { frames } = await following;
    const durable = durableOnce(frames);
    expect(durable.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', depth: 0, runId });
    expect(rootAnswer(durable)).toBe('listed');
    // The tool ran after the restart, and its result reached the model.
    expect(requestsOf(model, 'You are lister.')).toHaveLength(2);
    expect(durable.some((e) => e.type === 'STEP_COMPLETED' && e.snapshot?.role === 'tool')).toBe(true);
  }, 240_000);

  it('rolls out build B beside A under paused and approval-waiting runs, then rolls back to A', async () => {
    const { stack, model, client } = bed;
    const bridge = stack.bridges[0];
    const post = (url: string) => request(`${bridge.url}${url}`, { token: TOKEN, body: {} });
    const buildA = buildIdOf(stack.workers[0]);
    const workersA = [...stack.workers];
    // On build A: a run waiting for a person's approval, and a run paused during its model call (parked before its
    // tool).
    model.scriptFor('You are careful.', toolCalls([toolCall('ls', { path: '.' })]), text('careful done'));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    model.scriptFor(
      'You are lister.',
      async () => (await gate, toolCalls([toolCall('ls', { path: '.' })])),
      text('paused answer'),
    );
    model.scriptFor('You are solo.', text('on B'), text('back on A'));
    const asking = await startRunOn(bridge, 'careful', 'list');
    const ask = await waitForEvent(client, asking, (e) => e.type === 'TOOL_AUTH_REQUIRED');
    const paused = await startRunOn(bridge, 'lister', 'one');
    await waitFor('the model call to start', () => requestsOf(model, 'You are lister.').length === 1, 60_000);
    expect((await post(`/runs/${paused}/pause`)).status).toBeLessThan(300);
    release();
    await waitForEvent(client, paused, (e) => e.type === 'RUN_PAUSED');

    // Build B joins (not current: a version exists), is promoted, and new runs start on it.
    const workerB = await stack.startWorker({ AGIO_BUILD_ID: 'build-b' });
    const promoted = await stack.cli(['versions', 'promote', 'build-b']);
    expect(promoted).toMatchObject({ code: 0 });
    const onB = await startRunOn(bridge, 'solo', 'two');
    expect(rootAnswer(durableOnce((await followRun(onB, () => stack.bridges)).frames))).toBe('on B');
    expect(await workflowTaskWorkers(client, onB)).toEqual(expect.arrayContaining([workerB.pid]));
    expect((await workflowTaskWorkers(client, onB)).every((pid) => pid === workerB.pid)).toBe(true);

    // Rollback: A again (an older build needs --force); new runs start on A's workers.
    expect((await stack.cli(['versions', 'promote', buildA])).code).not.toBe(0);
    expect(await stack.cli(['versions', 'promote', buildA, '--force'])).toMatchObject({ code: 0 });
    const onA = await startRunOn(bridge, 'solo', 'three');
    expect(rootAnswer(durableOnce((await followRun(onA, () => stack.bridges)).frames))).toBe('back on A');
    const pidsA = workersA.filter((w) => stack.workers.includes(w)).map((w) => w.pid);
    expect((await workflowTaskWorkers(client, onA)).every((pid) => pidsA.includes(pid))).toBe(true);

    // The waiting runs went through both promotions and finish once a person acts.
    expect((await post(`/runs/${asking}/tool-calls/${authData(ask).toolCallId}/approve`)).status).toBe(200);
    expect((await post(`/runs/${paused}/resume`)).status).toBeLessThan(300);
    for (const [runId, answer] of [
      [asking, 'careful done'],
      [paused, 'paused answer'],
    ]) {
      const durable = durableOnce((await followRun(runId, () => stack.bridges)).frames);
      expect(durable.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', depth: 0, runId });
      expect(rootAnswer(durable)).toBe(answer);
    }
    console.log(`versions after the rollback:\n${(await stack.cli(['versions'])).output}`);
  }, 300_000);

  it(
    "carries a 5-branch parallel root of 60 kB reads: every event delivered once, the root's history under 1,000 events and 2 MB",
    async () => {
      const { stack, model, client } = bed;
      const reads = TREE_READS;
      const page = Array.from({ length: 600 }, (_, i) => `${String(i).padStart(4, '0')} ${'x'.repeat(94)}`).join('\n');
      for (const branch of [1, 2, 3, 4, 5]) {
        let issued = -1;
        const turn = (req: { body: { tools?: unknown[] } }) => {
          if (!req.body.tools?.length) return text(`summary of reader${branch}'s earlier turns`);
          if (issued < 0)
            return ((issued = 0), toolCalls([toolCall('file_write', { path: 'page.txt', content: page })]));
          if (issued >= reads) return text(`reader${branch} read ${reads} pages`);
          const now = Math.min(10, reads - issued);
          issued += now;
          return toolCalls(Array.from({ length: now }, () => toolCall('file_read', { path: 'page.txt' })));
        };
        // Enough turns for every read turn (unused ones are left).
        model.scriptFor(`You are reader${branch}.`, ...Array.from({ length: reads + 20 }, () => turn));
      }
      // A long branch condenses its older turns (workflows/agent-loop/condensation.ts): those calls carry the
      // condenser's prompt.
      model.scriptFor(
        CONDENSATION_MARKER,
        ...Array.from({ length: reads }, () => text('summary of the earlier reads')),
      );
      const t0 = Date.now();
      const runId = await startRunOn(stack.bridges[0], 'fanout', 'read');
      const { frames } = await followRun(runId, () => stack.bridges, undefined, TREE_FOLLOW_MS);
      const durable = durableOnce(frames);
      expect(durable.at(-1)).toMatchObject({ type: 'RUN_COMPLETED', depth: 0, runId });
      const toolSteps = durable.filter(
        (e) => e.type === 'STEP_COMPLETED' && e.depth === 1 && e.snapshot?.role === 'tool',
      );
      expect(toolSteps).toHaveLength(5 * (reads + 1));
      // Every Temporal run of the root (a root that continued as new has several), from visibility: a history past
      // gRPC's 4 MB message limit could not even be fetched.
      const sizes: { events: number; bytes: number }[] = [];
      for await (const run of client.workflow.list({ query: `WorkflowId = '${runId}'` }))
        sizes.push({ events: run.historyLength, bytes: run.historySize ?? 0 });
      expect(sizes.length).toBeGreaterThan(0);
      console.log(`5 x ${reads} reads in ${Date.now() - t0} ms; root runs ${JSON.stringify(sizes)}`);
      // Each branch keeps its own event log, so the root's history holds its own few steps and its five children,
      // whatever they do (before nested event logs: about 1,500 events and 34 MB at 100 reads a branch).
      for (const size of sizes) {
        expect(size.events).toBeLessThan(1000);
        expect(size.bytes).toBeLessThan(2 * 1024 * 1024);
      }
    },
    TREE_FOLLOW_MS + 5 * 60_000,
  );
});
