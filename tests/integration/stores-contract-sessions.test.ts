// The store contract, sessions: runs and their sessions, steps and a session's conversation, written idempotently
// and in any order (tests/helpers/store-contract.ts runs it against every implementation).
import { describeEachStore, runRecord, step, storeBackends, uniqueId as id, usage } from '../helpers/store-contract';

const backends = storeBackends((stores) => stores, { collectionPrefix: 'c_' });

describeEachStore('stores', backends, (stores) => {
  describe('sessions', () => {
    it('returns a session with its runs ordered by start time, whatever the write order', async () => {
      const tenant = id('t');
      await stores.sessions.upsertSession({ tenant, sessionId: 's', userId: 'u1', metadata: { topic: 'a' } });
      await stores.sessions.recordRun(runRecord(tenant, { runId: 'late', startedAt: 300 }));
      await stores.sessions.recordRun(
        runRecord(tenant, { runId: 'early', status: 'completed', startedAt: 100, endedAt: 150 }),
      );
      await stores.sessions.recordRun(runRecord(tenant, { sessionId: 'other', runId: 'elsewhere', startedAt: 200 }));
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
      await stores.sessions.recordRun(runRecord(tenant));
      expect((await stores.sessions.getSession(tenant, 's'))?.runs.map((r) => r.runId)).toEqual(['r']);
    });

    it('completes a run on a later write without erasing its earlier fields', async () => {
      const tenant = id('t');
      await stores.sessions.recordRun(runRecord(tenant, { startedAt: 10 }));
      // The later write names no session: it must not erase the one the run was recorded in.
      const completed = {
        runId: 'r',
        rootRunId: 'r',
        agent: 'a',
        status: 'completed' as const,
        startedAt: 10,
        endedAt: 20,
        usage: usage(5, 2),
      };
      await stores.sessions.recordRun({ tenant, ...completed });
      expect(await stores.sessions.listRuns(tenant, 's')).toEqual([{ sessionId: 's', ...completed }]);
    });

    it('records a run and its session once when the same new run is written concurrently', async () => {
      const tenant = id('t');
      const run = runRecord(tenant);
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
      await stores.sessions.recordRun(runRecord(tenant, { status: 'cancelled' }));
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
});
