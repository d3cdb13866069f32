// The store contract: one suite, run against every implementation (memory, and MongoDB on the harness's
// FerretDB). Each test works in tenants of its own, so tests share one set of stores without seeing each other.
import { MongoClient } from 'mongodb';
import { randomUUID } from 'node:crypto';
import type { WireEvent, Step, Usage } from '../../common';
import { createMemoryStores, createMongoStores, type SpanInput, type Stores } from '../../stores';
import { testEnv } from '../helpers/test-env';

interface Backend {
  stores: Stores;
  close(): Promise<void>;
}

async function memoryBackend(): Promise<Backend> {
  return { stores: createMemoryStores(), close: async () => undefined };
}

/** Stores in a database of their own, dropped when the suite ends. */
async function mongoBackend(): Promise<Backend> {
  const client = await new MongoClient(testEnv('mongoUri'), { serverSelectionTimeoutMS: 10_000 }).connect();
  const dbName = `agio_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  return {
    stores: createMongoStores(client, { dbName, collectionPrefix: 'c_' }),
    async close() {
      await client.db(dbName).dropDatabase();
      await client.close();
    },
  };
}

const id = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
const usage = (promptTokens: number, completionTokens: number): Usage => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
});

function step(runId: string, index: number, fields: Partial<Step> = {}): Step {
  return { id: `${runId}:${index}`, runId, index, role: 'user', content: `message ${index} of ${runId}`, ...fields };
}

/** Ids that must read as unknown: empty, unknown, an operator object (a query injection), oversized. */
const BAD_IDS = [
  '',
  'no-such-id',
  { $ne: null } as unknown as string,
  { $gt: '' } as unknown as string,
  'x'.repeat(10_000),
];

describe.each([
  ['memory', memoryBackend],
  ['mongodb (FerretDB)', mongoBackend],
])('%s stores', (_name, open) => {
  let backend: Backend;
  let stores: Stores;
  beforeAll(async () => {
    backend = await open();
    stores = backend.stores;
    await stores.setup();
  });
  afterAll(() => backend?.close());

  it('can run setup() again on stores that already hold data', async () => {
    const tenant = id('t');
    await stores.toolResults.put(tenant, { runId: 'r', toolCallId: 'c', content: 'kept' });
    await stores.setup();
    await stores.setup();
    expect(
      await stores.toolResults.get(
        tenant,
        'r',
        await stores.toolResults.put(tenant, { runId: 'r', toolCallId: 'c', content: 'x' }),
      ),
    ).toBe('kept');
  });

  describe('sessions', () => {
    it('returns a session with its runs ordered by start time, whatever the write order', async () => {
      const tenant = id('t');
      await stores.sessions.upsertSession({ tenant, sessionId: 's', userId: 'u1', metadata: { topic: 'a' } });
      await stores.sessions.recordRun({
        tenant,
        sessionId: 's',
        runId: 'late',
        rootRunId: 'late',
        agent: 'a',
        status: 'running',
        startedAt: 300,
      });
      await stores.sessions.recordRun({
        tenant,
        sessionId: 's',
        runId: 'early',
        rootRunId: 'early',
        agent: 'a',
        status: 'completed',
        startedAt: 100,
        endedAt: 150,
      });
      await stores.sessions.recordRun({
        tenant,
        sessionId: 'other',
        runId: 'elsewhere',
        rootRunId: 'elsewhere',
        agent: 'a',
        status: 'running',
        startedAt: 200,
      });
      const session = await stores.sessions.getSession(tenant, 's');
      expect(session).toMatchObject({ sessionId: 's', userId: 'u1', metadata: { topic: 'a' } });
      expect(session?.createdAt).toEqual(expect.any(Number));
      expect(session?.runs.map((r) => r.runId)).toEqual(['early', 'late']);
      expect(await stores.sessions.listRuns(tenant, 's')).toEqual(session?.runs);
      expect(session?.runs[0]).toEqual({
        sessionId: 's',
        runId: 'early',
        rootRunId: 'early',
        agent: 'a',
        status: 'completed',
        startedAt: 100,
        endedAt: 150,
      });
    });

    it('keeps session fields a later upsert leaves out and replaces those it gives', async () => {
      const tenant = id('t');
      await stores.sessions.upsertSession({ tenant, sessionId: 's', userId: 'u1', metadata: { a: 1 } });
      await stores.sessions.upsertSession({ tenant, sessionId: 's', metadata: { b: 2 } });
      expect(await stores.sessions.getSession(tenant, 's')).toMatchObject({
        userId: 'u1',
        metadata: { b: 2 },
        runs: [],
      });
    });

    it('creates the session of a recorded run', async () => {
      const tenant = id('t');
      await stores.sessions.recordRun({
        tenant,
        sessionId: 's',
        runId: 'r',
        rootRunId: 'r',
        agent: 'a',
        status: 'running',
        startedAt: 1,
      });
      expect((await stores.sessions.getSession(tenant, 's'))?.runs.map((r) => r.runId)).toEqual(['r']);
    });

    it('completes a run on a later write without erasing its earlier fields', async () => {
      const tenant = id('t');
      await stores.sessions.recordRun({
        tenant,
        sessionId: 's',
        runId: 'r',
        rootRunId: 'r',
        agent: 'a',
        status: 'running',
        startedAt: 10,
      });
      await stores.sessions.recordRun({
        tenant,
        runId: 'r',
        rootRunId: 'r',
        agent: 'a',
        status: 'completed',
        startedAt: 10,
        endedAt: 20,
        usage: usage(5, 2),
      });
      expect(await stores.sessions.listRuns(tenant, 's')).toEqual([
        {
          sessionId: 's',
          runId: 'r',
          rootRunId: 'r',
          agent: 'a',
          status: 'completed',
          startedAt: 10,
          endedAt: 20,
          usage: usage(5, 2),
        },
      ]);
    });

    it('records a run and its session once when the same new run is written concurrently', async () => {
      const tenant = id('t');
      const run = {
        tenant,
        sessionId: 's',
        runId: 'r',
        rootRunId: 'r',
        agent: 'a',
        status: 'running' as const,
        startedAt: 1,
      };
      await Promise.all([1, 2, 3, 4].map(() => stores.sessions.recordRun(run)));
      expect((await stores.sessions.getSession(tenant, 's'))?.runs).toHaveLength(1);
    });

    it('does not reopen a finished run when a late running write arrives', async () => {
      const tenant = id('t');
      const run = { tenant, sessionId: 's', runId: 'r', rootRunId: 'r', agent: 'a', startedAt: 10 };
      await stores.sessions.recordRun({ ...run, status: 'failed', endedAt: 20 });
      await stores.sessions.recordRun({ ...run, status: 'running' });
      await stores.sessions.recordRun({ ...run, status: 'paused' });
      expect((await stores.sessions.listRuns(tenant, 's'))[0]).toMatchObject({ status: 'failed', endedAt: 20 });
    });

    it('stores a step written twice once, keeping the first write', async () => {
      const tenant = id('t');
      const steps = [step('r', 0), step('r', 1, { role: 'assistant', content: 'hi', usage: usage(3, 1) })];
      await stores.sessions.appendSteps(tenant, steps, 's');
      await Promise.all([1, 2, 3].map(() => stores.sessions.appendSteps(tenant, steps, 's')));
      await stores.sessions.appendSteps(tenant, [step('r', 1, { content: 'rewritten' }), step('r', 2)]);
      const stored = await stores.sessions.listSteps(tenant, 'r');
      expect(stored).toEqual([...steps, step('r', 2)]);
    });

    it('lists a run’s steps by index whatever the write order, and no other run’s', async () => {
      const tenant = id('t');
      await stores.sessions.appendSteps(tenant, [step('r', 2), step('r', 0)]);
      await stores.sessions.appendSteps(tenant, [step('other', 0), step('r', 1)]);
      expect((await stores.sessions.listSteps(tenant, 'r')).map((s) => s.index)).toEqual([0, 1, 2]);
    });

    it('loads a session’s conversation from its root runs in start order, without system steps or nested runs', async () => {
      const tenant = id('t');
      const run = (runId: string, startedAt: number, parentRunId?: string) =>
        stores.sessions.recordRun({
          tenant,
          sessionId: 's',
          runId,
          rootRunId: parentRunId ?? runId,
          ...(parentRunId ? { parentRunId } : {}),
          agent: 'a',
          status: 'completed',
          startedAt,
        });
      await run('second', 200);
      await run('first', 100);
      await run('child', 150, 'first');
      const call = { id: 'call-1', name: 'ask_helper', arguments: '{}' };
      await stores.sessions.appendSteps(
        tenant,
        [
          step('second', 0, { role: 'system', content: 'be brief' }),
          step('second', 1, { content: 'and now?' }),
          step('second', 2, { role: 'assistant', content: 'done' }),
        ],
        's',
      );
      await stores.sessions.appendSteps(
        tenant,
        [
          step('first', 4, { role: 'assistant', content: 'it is 4' }),
          step('first', 0, { role: 'system', content: 'be brief' }),
          step('first', 1, { content: 'what is 2+2?' }),
          step('first', 2, { role: 'assistant', content: null, toolCalls: [call] }),
        ],
        's',
      );
      await stores.sessions.appendSteps(
        tenant,
        [step('first', 3, { role: 'tool', toolCallId: 'call-1', name: 'ask_helper', content: '4' })],
        's',
      );
      await stores.sessions.appendSteps(tenant, [step('child', 0, { content: 'nested question' })], 's');
      expect(await stores.sessions.loadConversation(tenant, 's')).toEqual([
        { role: 'user', content: 'what is 2+2?' },
        { role: 'assistant', content: null, toolCalls: [call] },
        { role: 'tool', content: '4', toolCallId: 'call-1', name: 'ask_helper' },
        { role: 'assistant', content: 'it is 4' },
        { role: 'user', content: 'and now?' },
        { role: 'assistant', content: 'done' },
      ]);
    });

    it('leaves out of the conversation the tool calls a stopped run never answered', async () => {
      const tenant = id('t');
      await stores.sessions.recordRun({
        tenant,
        sessionId: 's',
        runId: 'r',
        rootRunId: 'r',
        agent: 'a',
        status: 'cancelled',
        startedAt: 1,
      });
      const answered = { id: 'c1', name: 'grep', arguments: '{}' };
      const unanswered = { id: 'c2', name: 'grep', arguments: '{}' };
      await stores.sessions.appendSteps(tenant, [
        step('r', 0),
        step('r', 1, { role: 'assistant', content: 'looking', toolCalls: [answered, unanswered] }),
        step('r', 2, { role: 'tool', toolCallId: 'c1', name: 'grep', content: 'found' }),
        step('r', 3, { role: 'assistant', content: null, toolCalls: [{ ...unanswered, id: 'c3' }] }),
      ]);
      expect(await stores.sessions.loadConversation(tenant, 's')).toEqual([
        { role: 'user', content: 'message 0 of r' },
        { role: 'assistant', content: 'looking', toolCalls: [answered] },
        { role: 'tool', content: 'found', toolCallId: 'c1', name: 'grep' },
      ]);
    });

    it('leaves a rolled-back run out of the conversation, keeping its record marked (idempotent)', async () => {
      const tenant = id('t');
      for (const [runId, startedAt] of [
        ['gone', 1],
        ['kept', 2],
      ] as const) {
        const run = { tenant, sessionId: 's', runId, rootRunId: runId, agent: 'a', startedAt };
        await stores.sessions.recordRun({ ...run, status: 'completed' });
        await stores.sessions.appendSteps(tenant, [step(runId, 0)], 's');
      }
      await stores.sessions.rollBackRun(tenant, 'gone');
      await stores.sessions.rollBackRun(tenant, 'gone');
      await stores.sessions.rollBackRun(id('other'), 'kept');
      expect(await stores.sessions.loadConversation(tenant, 's')).toEqual([
        { role: 'user', content: 'message 0 of kept' },
      ]);
      const runs = (await stores.sessions.getSession(tenant, 's'))!.runs;
      expect(runs.map((r) => [r.runId, r.rolledBack ?? false])).toEqual([
        ['gone', true],
        ['kept', false],
      ]);
    });
  });

  describe('traces', () => {
    it('nests a child run under the parent’s tool span and sums model usage up the tree', async () => {
      const tenant = id('t');
      const span = (s: Omit<SpanInput, 'tenant' | 'traceId' | 'status' | 'name'>) =>
        stores.traces.recordSpan({ tenant, traceId: 'root', status: 'ok', name: s.kind, ...s });
      await span({
        spanId: 'child-model',
        parentSpanId: 'child-run',
        kind: 'model',
        runId: 'child',
        startedAt: 4,
        usage: usage(3, 2),
      });
      await span({ spanId: 'root-run', kind: 'run', runId: 'root', startedAt: 1, usage: usage(14, 8) });
      await span({
        spanId: 'model-1',
        parentSpanId: 'root-run',
        kind: 'model',
        runId: 'root',
        startedAt: 2,
        usage: usage(10, 5),
      });
      await span({ spanId: 'tool-1', parentSpanId: 'root-run', kind: 'tool', runId: 'root', startedAt: 3 });
      await span({
        spanId: 'child-run',
        parentSpanId: 'tool-1',
        kind: 'run',
        runId: 'child',
        startedAt: 3.5,
        usage: usage(3, 2),
      });
      await span({
        spanId: 'model-2',
        parentSpanId: 'root-run',
        kind: 'model',
        runId: 'root',
        startedAt: 6,
        usage: usage(1, 1),
      });
      const trace = await stores.traces.getTrace(tenant, 'root');
      expect(trace?.spans.map((s) => s.spanId)).toEqual([
        'root-run',
        'model-1',
        'tool-1',
        'child-run',
        'child-model',
        'model-2',
      ]);
      const [root] = trace?.tree ?? [];
      expect(trace?.tree).toHaveLength(1);
      expect(root.span.spanId).toBe('root-run');
      expect(root.totalUsage).toEqual(usage(14, 8));
      expect(root.children.map((n) => n.span.spanId)).toEqual(['model-1', 'tool-1', 'model-2']);
      const tool = root.children[1];
      expect(tool.totalUsage).toEqual(usage(3, 2));
      expect(tool.children[0]).toMatchObject({
        span: { spanId: 'child-run', runId: 'child' },
        totalUsage: usage(3, 2),
      });
      expect(tool.children[0].children.map((n) => n.span.spanId)).toEqual(['child-model']);
    });

    it('completes a running span on a later write and ignores a late running write', async () => {
      const tenant = id('t');
      const base = {
        tenant,
        traceId: 'tr',
        spanId: 'sp',
        kind: 'tool' as const,
        name: 'grep',
        runId: 'r',
        startedAt: 1,
      };
      await stores.traces.recordSpan({ ...base, status: 'running', attributes: { args: '{}' } });
      await stores.traces.recordSpan({ ...base, status: 'error', endedAt: 5 });
      await stores.traces.recordSpan({ ...base, status: 'running' });
      expect((await stores.traces.getTrace(tenant, 'tr'))?.spans).toEqual([
        {
          traceId: 'tr',
          spanId: 'sp',
          kind: 'tool',
          name: 'grep',
          runId: 'r',
          startedAt: 1,
          status: 'error',
          endedAt: 5,
          attributes: { args: '{}' },
        },
      ]);
    });

    it('records a span once when the same new span is written concurrently', async () => {
      const tenant = id('t');
      const span = {
        tenant,
        traceId: 'tr',
        spanId: 'sp',
        kind: 'model' as const,
        name: 'm',
        runId: 'r',
        startedAt: 1,
        status: 'running' as const,
      };
      await Promise.all([1, 2, 3, 4].map(() => stores.traces.recordSpan(span)));
      expect((await stores.traces.getTrace(tenant, 'tr'))?.spans).toHaveLength(1);
    });

    it('makes a span whose parent is not recorded yet a root of the tree', async () => {
      const tenant = id('t');
      await stores.traces.recordSpan({
        tenant,
        traceId: 'tr',
        spanId: 'orphan',
        parentSpanId: 'missing',
        kind: 'model',
        name: 'm',
        runId: 'r',
        startedAt: 1,
        status: 'running',
      });
      expect((await stores.traces.getTrace(tenant, 'tr'))?.tree.map((n) => n.span.spanId)).toEqual(['orphan']);
    });
  });

  describe('citations', () => {
    it('stores a source once per run, tool call and url, listed in the order first added', async () => {
      const tenant = id('t');
      const a = { url: 'https://a.example', title: 'A' };
      const b = { url: 'https://b.example', snippet: 'bee' };
      await stores.citations.addCitations(tenant, { runId: 'r', stepId: 'r:2', toolCallId: 'c1', sources: [a, b, a] });
      await stores.citations.addCitations(tenant, {
        runId: 'r',
        stepId: 'r:2',
        toolCallId: 'c1',
        sources: [b, { url: 'https://c.example' }],
      });
      await stores.citations.addCitations(tenant, { runId: 'r', stepId: 'r:4', toolCallId: 'c2', sources: [a] });
      await stores.citations.addCitations(tenant, {
        runId: 'other',
        stepId: 'other:1',
        toolCallId: 'c1',
        sources: [a],
      });
      const listed = await stores.citations.listCitations(tenant, 'r');
      expect(listed.map((c) => [c.toolCallId, c.url])).toEqual([
        ['c1', a.url],
        ['c1', b.url],
        ['c1', 'https://c.example'],
        ['c2', a.url],
      ]);
      expect(listed[1]).toEqual({ runId: 'r', stepId: 'r:2', toolCallId: 'c1', ...b, createdAt: expect.any(Number) });
    });
  });

  describe('tool results', () => {
    it('returns the same ref for a retried put and keeps the first content', async () => {
      const tenant = id('t');
      const refs = await Promise.all(
        ['first', 'first', 'first'].map((content) =>
          stores.toolResults.put(tenant, { runId: 'r', toolCallId: 'c', content }),
        ),
      );
      const again = await stores.toolResults.put(tenant, { runId: 'r', toolCallId: 'c', content: 'second' });
      expect(new Set([...refs, again]).size).toBe(1);
      expect(await stores.toolResults.get(tenant, 'r', again)).toBe('first');
      expect(await stores.toolResults.put(tenant, { runId: 'r', toolCallId: 'other', content: 'x' })).not.toBe(again);
    });

    it('does not return a result through another run’s id', async () => {
      const tenant = id('t');
      const ref = await stores.toolResults.put(tenant, { runId: 'r1', toolCallId: 'c', content: 'secret' });
      expect(await stores.toolResults.get(tenant, 'r2', ref)).toBeUndefined();
    });

    it('round-trips a 5 MB result', async () => {
      const tenant = id('t');
      const content = 'Lorem ipsum dolor sit amet — ünïcode ✓\n'
        .repeat(Math.ceil((5 * 1024 * 1024) / 40))
        .slice(0, 5 * 1024 * 1024);
      const ref = await stores.toolResults.put(tenant, { runId: 'r', toolCallId: 'big', content });
      expect(await stores.toolResults.get(tenant, 'r', ref)).toBe(content);
    });
  });

  describe('event logs', () => {
    const event = (rootRunId: string, offset: number, fields: Partial<WireEvent> = {}): WireEvent => ({
      type: 'STEP_COMPLETED',
      runId: rootRunId,
      rootRunId,
      agent: 'a',
      depth: 0,
      offset,
      timestamp: 1000 + offset,
      ...fields,
    });

    it('reads events after an offset in offset order, a page at a time, whatever the write order', async () => {
      const tenant = id('t');
      await stores.events.append(tenant, 'r', [event('r', 3), event('r', 4)]);
      await stores.events.append(tenant, 'r', [event('r', 0, { type: 'RUN_STARTED' }), event('r', 1), event('r', 2)]);
      await stores.events.append(tenant, 'other', [event('other', 0)]);
      expect((await stores.events.read(tenant, 'r', -1, 100)).map((e) => e.offset)).toEqual([0, 1, 2, 3, 4]);
      expect((await stores.events.read(tenant, 'r', 1, 2)).map((e) => e.offset)).toEqual([2, 3]);
      expect(await stores.events.read(tenant, 'r', 4, 100)).toEqual([]);
    });

    it('stores an event written twice once, keeping the first write, and returns it exactly (nulls, nested data)', async () => {
      const tenant = id('t');
      const first = event('r', 0, {
        snapshot: {
          id: 'r:0',
          runId: 'r',
          index: 0,
          role: 'assistant',
          content: null,
          toolCalls: [{ id: 'c', name: 'ls', arguments: '{}' }],
        },
        data: { 'a.b': { $weird: [1, null] } },
      });
      await Promise.all([stores.events.append(tenant, 'r', [first]), stores.events.append(tenant, 'r', [first])]);
      await stores.events.append(tenant, 'r', [event('r', 0, { type: 'ERROR' }), event('r', 1)]);
      const read = await stores.events.read(tenant, 'r', -1, 10);
      expect(read).toEqual([first, event('r', 1)]);
    });

    it('rejects a malformed event instead of storing it', async () => {
      const tenant = id('t');
      await expect(
        stores.events.append(tenant, 'r', [{ ...event('r', 0), offset: 'zero' } as unknown as WireEvent]),
      ).rejects.toThrow();
      await expect(stores.events.append('', 'r', [event('r', 0)])).rejects.toThrow();
      expect(await stores.events.read(tenant, 'r', -1, 10)).toEqual([]);
    });
  });

  it('shows tenant B nothing of tenant A’s sessions, runs, steps, traces, citations, tool results or event logs', async () => {
    const [a, b] = [id('a'), id('b')];
    await stores.sessions.upsertSession({ tenant: a, sessionId: 's' });
    await stores.sessions.recordRun({
      tenant: a,
      sessionId: 's',
      runId: 'r',
      rootRunId: 'r',
      agent: 'x',
      status: 'running',
      startedAt: 1,
    });
    await stores.sessions.appendSteps(a, [step('r', 0)], 's');
    await stores.traces.recordSpan({
      tenant: a,
      traceId: 'r',
      spanId: 'sp',
      kind: 'run',
      name: 'x',
      runId: 'r',
      startedAt: 1,
      status: 'running',
    });
    await stores.citations.addCitations(a, {
      runId: 'r',
      stepId: 'r:0',
      toolCallId: 'c',
      sources: [{ url: 'https://a.example' }],
    });
    const ref = await stores.toolResults.put(a, { runId: 'r', toolCallId: 'c', content: 'for a' });
    await stores.events.append(a, 'r', [
      { type: 'RUN_STARTED', runId: 'r', rootRunId: 'r', agent: 'x', depth: 0, offset: 0, timestamp: 1 },
    ]);

    expect(await stores.events.read(b, 'r', -1, 10)).toEqual([]);
    expect(await stores.sessions.getSession(b, 's')).toBeUndefined();
    expect(await stores.sessions.listRuns(b, 's')).toEqual([]);
    expect(await stores.sessions.listSteps(b, 'r')).toEqual([]);
    expect(await stores.sessions.loadConversation(b, 's')).toEqual([]);
    expect(await stores.traces.getTrace(b, 'r')).toBeUndefined();
    expect(await stores.citations.listCitations(b, 'r')).toEqual([]);
    expect(await stores.toolResults.get(b, 'r', ref)).toBeUndefined();

    // The same ids under tenant B are B's own records and leave A's alone.
    await stores.sessions.appendSteps(b, [step('r', 0, { content: 'for b' })]);
    expect(await stores.toolResults.put(b, { runId: 'r', toolCallId: 'c', content: 'for b' })).toBe(ref);
    expect(await stores.toolResults.get(a, 'r', ref)).toBe('for a');
    expect(await stores.toolResults.get(b, 'r', ref)).toBe('for b');
    expect((await stores.sessions.listSteps(a, 'r'))[0].content).toBe('message 0 of r');
    expect((await stores.sessions.listSteps(b, 'r'))[0].content).toBe('for b');
  });

  it('answers reads with unknown or malformed ids with undefined or empty, never an error or another record', async () => {
    const tenant = id('t');
    await stores.sessions.recordRun({
      tenant,
      sessionId: 's',
      runId: 'r',
      rootRunId: 'r',
      agent: 'x',
      status: 'running',
      startedAt: 1,
    });
    await stores.sessions.appendSteps(tenant, [step('r', 0)], 's');
    await stores.traces.recordSpan({
      tenant,
      traceId: 'r',
      spanId: 'sp',
      kind: 'run',
      name: 'x',
      runId: 'r',
      startedAt: 1,
      status: 'running',
    });
    await stores.citations.addCitations(tenant, {
      runId: 'r',
      stepId: 'r:0',
      toolCallId: 'c',
      sources: [{ url: 'https://a.example' }],
    });
    const ref = await stores.toolResults.put(tenant, { runId: 'r', toolCallId: 'c', content: 'x' });
    for (const bad of BAD_IDS) {
      expect(await stores.sessions.getSession(tenant, bad)).toBeUndefined();
      expect(await stores.sessions.getSession(bad, 's')).toBeUndefined();
      expect(await stores.sessions.listRuns(tenant, bad)).toEqual([]);
      expect(await stores.sessions.listSteps(tenant, bad)).toEqual([]);
      expect(await stores.sessions.loadConversation(tenant, bad)).toEqual([]);
      expect(await stores.traces.getTrace(tenant, bad)).toBeUndefined();
      expect(await stores.citations.listCitations(tenant, bad)).toEqual([]);
      expect(await stores.toolResults.get(tenant, 'r', bad)).toBeUndefined();
      expect(await stores.toolResults.get(tenant, bad, ref)).toBeUndefined();
      expect(await stores.toolResults.get(bad, 'r', ref)).toBeUndefined();
      expect(await stores.events.read(tenant, bad, -1, 10)).toEqual([]);
      expect(await stores.events.read(bad, 'r', -1, 10)).toEqual([]);
    }
  });

  it('rejects a write with an invalid record instead of storing it', async () => {
    const tenant = id('t');
    const span = {
      tenant,
      traceId: 'tr',
      spanId: 'sp',
      kind: 'thought',
      name: 'x',
      runId: 'r',
      startedAt: 1,
      status: 'ok',
    } as unknown as SpanInput;
    await expect(stores.traces.recordSpan(span)).rejects.toThrow(/kind/);
    await expect(stores.sessions.appendSteps('', [step('r', 0)])).rejects.toThrow();
    expect(await stores.traces.getTrace(tenant, 'tr')).toBeUndefined();
  });
});
