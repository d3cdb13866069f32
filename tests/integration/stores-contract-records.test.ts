// The store contract, a run's other records: traces, citations, tool results and event logs, written idempotently
// and in any order (tests/helpers/store-contract.ts runs it against every implementation).
import type { WireEvent } from '../../common';
import type { SpanInput } from '../../stores';
import { describeEachStore, spanRecord, storeBackends, uniqueId as id, usage } from '../helpers/store-contract';

const backends = storeBackends((stores) => stores, { collectionPrefix: 'c_' });

describeEachStore('stores', backends, (stores) => {
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
      const base = spanRecord(tenant, { kind: 'tool', name: 'grep' });
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
      const span = spanRecord(tenant);
      await Promise.all([1, 2, 3, 4].map(() => stores.traces.recordSpan(span)));
      expect((await stores.traces.getTrace(tenant, 'tr'))?.spans).toHaveLength(1);
    });

    it('makes a span whose parent is not recorded yet a root of the tree', async () => {
      const tenant = id('t');
      await stores.traces.recordSpan(spanRecord(tenant, { spanId: 'orphan', parentSpanId: 'missing' }));
      expect((await stores.traces.getTrace(tenant, 'tr'))?.tree.map((n) => n.span.spanId)).toEqual(['orphan']);
    });
  });

  describe('citations', () => {
    it('stores a source once per run, tool call and url, listed in the order first added', async () => {
      const tenant = id('t');
      const a = { url: 'https://a.example', title: 'A' };
      const b = { url: 'https://b.example', snippet: 'bee' };
      await stores.citations.addCitations(tenant, {
        runId: 'r',
        stepId: 'r:2',
        toolCallId: 'c1',
        sources: [a, b, a],
      });
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
});
