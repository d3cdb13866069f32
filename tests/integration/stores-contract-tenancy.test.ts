// The store contract, its doors: tenants apart, unknown or malformed ids read as nothing, invalid records refused,
// setup() run again on data (tests/helpers/store-contract.ts runs it against every implementation).
import type { SpanInput } from '../../stores';
import {
  BAD_IDS,
  describeEachStore,
  runRecord,
  spanRecord,
  step,
  storeBackends,
  uniqueId as id,
} from '../helpers/store-contract';

const backends = storeBackends((stores) => stores, { collectionPrefix: 'c_' });

describeEachStore('stores', backends, (stores) => {
  /** Run `r` of `tenant` in session `s` with a step, a span, a citation and a tool result (`content`); its ref. */
  async function seedRecords(tenant: string, content: string): Promise<string> {
    await stores.sessions.recordRun(runRecord(tenant, { agent: 'x' }));
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
    return stores.toolResults.put(tenant, { runId: 'r', toolCallId: 'c', content });
  }

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

  it('shows tenant B nothing of tenant A’s sessions, runs, steps, traces, citations, tool results or event logs', async () => {
    const [a, b] = [id('a'), id('b')];
    await stores.sessions.upsertSession({ tenant: a, sessionId: 's' });
    const ref = await seedRecords(a, 'for a');
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
    const ref = await seedRecords(tenant, 'x');
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
    const span = spanRecord(tenant, {
      kind: 'thought' as SpanInput['kind'],
      name: 'x',
      status: 'ok' as SpanInput['status'],
    });
    await expect(stores.traces.recordSpan(span)).rejects.toThrow(/kind/);
    await expect(stores.sessions.appendSteps('', [step('r', 0)])).rejects.toThrow();
    expect(await stores.traces.getTrace(tenant, 'tr')).toBeUndefined();
  });
});
