// Faults of nested agents on a real dev server: a child whose model refuses (401) or that outlives its timeout
// folds into an `unavailable` tool result and the parent answers anyway (a timed-out child is cancelled by its
// parent's timer, so it ends itself and its own children cleanly); cancelling the root cancels the whole
// tree; a worker SIGKILLed while a child streams is replaced and the child resumes where it was.
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { asTool, defineAgent, type RunOutput } from '../../common';
import { text, toolCall, toolCalls, type ScriptedTurn } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { activities, sentMessages, sentToolResult, startRun, slowAnswer } from '../helpers/agent-runs';
import {
  childStarts,
  eventsOf,
  expectWholeStream,
  readStream,
  requestsOf,
  runAndStream,
  waitForEvent,
} from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';
import { startTestWorker, uniqueId } from '../helpers/temporal';
import { waitFor } from '../helpers/workflow-agents';
import { failoverWorkers, startTestWorkerProcess } from '../helpers/worker-process';

describe('nested agent faults', () => {
  const bed = useTestBed({ tools: testTools });
  const { model } = bed;
  const helper = (extra: { instructions: string; tools?: string[] }) => defineAgent({ name: 'helper', ...extra });
  const parentOf = (child: ReturnType<typeof defineAgent>, opts: { timeoutMs?: number } = {}) =>
    defineAgent({
      name: 'parent',
      instructions: 'You are the parent.',
      tools: [asTool(child, { description: 'Helps.', ...opts })],
    });

  /**
   * A middle agent that calls two slow children (left, right: their model never answers in time) with `childTool`
   * options, scripted under the parent (whose second answer is 'top answer'); the middle's second turn is `answer`.
   */
  const middleOverSlowChildren = (childTool: { timeoutMs?: number } = {}, ...answer: ScriptedTurn[]) => {
    const slow = (name: string) => defineAgent({ name, instructions: `You are the slow ${name}.` });
    bed.server.scriptFor(
      'You are the parent.',
      toolCalls([toolCall('middle', { task: 'delegate' }, { id: 'call_middle' })]),
      text('top answer'),
    );
    bed.server.scriptFor(
      'You are the middle.',
      toolCalls([
        toolCall('left', { task: 'l' }, { id: 'call_left' }),
        toolCall('right', { task: 'r' }, { id: 'call_right' }),
      ]),
      ...answer,
    );
    bed.server.setDefault(text('never', { hangMs: 30_000 }));
    return defineAgent({
      name: 'middle',
      instructions: 'You are the middle.',
      tools: [
        asTool(slow('left'), { description: 'Left.', ...childTool }),
        asTool(slow('right'), { description: 'Right.', ...childTool }),
      ],
    });
  };

  describe('on an in-process worker', () => {
    const run = (agent: ReturnType<typeof defineAgent>) =>
      runAndStream(bed.client, bed.worker.taskQueue, { agent, input: 'go' });

    it('folds a child whose model answers 401 into an unavailable tool result; the parent answers and its stream goes on', async () => {
      const usage = (prompt_tokens: number, completion_tokens: number) => ({
        usage: { prompt_tokens, completion_tokens },
      });
      bed.server.scriptFor(
        'You are the parent.',
        toolCalls([toolCall('helper', { task: 'try' }, { id: 'call_helper' })], usage(100, 10)),
        text('answered anyway', { ...usage(200, 20), chunkSize: 3, delayMs: 10 }),
      );
      // The child spends tokens on one turn before its model refuses it.
      bed.server.scriptFor(
        'You are the broken helper.',
        toolCalls([toolCall('echo', { text: 'first' })], usage(20, 2)),
        { error: { status: 401 } },
      );

      const { rootRunId, events, output } = await run(
        parentOf(helper({ instructions: 'You are the broken helper.', tools: ['echo'] })),
      );

      expect(output).toMatchObject({
        terminationReason: 'completed',
        response: 'answered anyway',
        metrics: { toolErrors: 1 },
      });
      const result: unknown = JSON.parse(
        sentToolResult(requestsOf(bed.server, 'You are the parent.')[1], 'call_helper'),
      );
      expect(result).toEqual({ unavailable: true, agent: 'helper', error: expect.stringContaining('HTTP 401') });
      expect(requestsOf(bed.server, 'You are the broken helper.')).toHaveLength(2);
      const childRunId = `${rootRunId}/tool/3-call_helper`;
      expect((await bed.client.workflow.getHandle(childRunId).describe()).status.name).toBe('FAILED');
      // Tokens a failed child spent still count: in its RUN_FAILED and in the root's usage.
      expect(output.usage).toEqual({ promptTokens: 320, completionTokens: 32, totalTokens: 352, costUnknown: true });
      expectWholeStream(events, rootRunId, 'RUN_COMPLETED');
      const failed = events.findIndex((e) => e.type === 'RUN_FAILED');
      expect(events[failed]).toMatchObject({
        runId: childRunId,
        depth: 1,
        parentRunId: rootRunId,
        data: { error: { type: 'ModelAuthError' } },
      });
      expect(events[failed].usage).toEqual({
        promptTokens: 20,
        completionTokens: 2,
        totalTokens: 22,
        costUnknown: true,
      });
      expect(events.slice(failed + 1).map((e) => e.runId)).toEqual(events.slice(failed + 1).map(() => rootRunId));
      expect(events.slice(failed + 1).some((e) => e.type === 'STEP_DELTA')).toBe(true);
    });

    it('cancels a child that outlives its timeoutMs, which ends itself cleanly, and folds it into an unavailable tool result', async () => {
      bed.server.scriptFor(
        'You are the parent.',
        toolCalls([toolCall('helper', { task: 'take your time' }, { id: 'call_slow' })]),
        text('went on without it'),
      );
      // Whatever the child asks its model hangs; under load its timeout may even come before it asks.
      bed.server.setDefault(text('far too late', { hangMs: 30_000 }));

      const started = Date.now();
      const { rootRunId, events, output } = await run(
        parentOf(helper({ instructions: 'You are the slow helper.' }), { timeoutMs: 1500 }),
      );

      expect(Date.now() - started).toBeLessThan(15_000);
      expect(output.response).toBe('went on without it');
      const result: unknown = JSON.parse(sentToolResult(requestsOf(bed.server, 'You are the parent.')[1], 'call_slow'));
      expect(result).toEqual({
        unavailable: true,
        agent: 'helper',
        error: 'timed out: it did not finish within its timeoutMs of 1500 ms',
      });
      const childRunId = `${rootRunId}/tool/3-call_slow`;
      // The parent's timer cancelled the child: the child ran its own ending (before, the server timed it out
      // silently).
      expect((await bed.client.workflow.getHandle(childRunId).describe()).status.name).toBe('CANCELLED');
      expectWholeStream(events, rootRunId, 'RUN_COMPLETED');
      const lifecycle = eventsOf(events, childRunId).filter((e) => e.type.startsWith('RUN_'));
      expect(lifecycle.map((e) => e.type)).toEqual(['RUN_STARTED', 'RUN_CANCELLED']);
      expect(lifecycle[1]).toMatchObject({
        depth: 1,
        parentRunId: rootRunId,
        toolCallId: 'call_slow',
        agent: 'helper',
        nestingType: 'agent_tool',
      });
      expect(lifecycle[1].data).not.toHaveProperty('reportedBy');
      // It recorded its own end: its run span is closed.
      const trace = await bed.worker.stores.traces.getTrace('default', rootRunId);
      expect(trace?.spans.find((s) => s.spanId === childRunId)?.status).toBe('error');
    });

    it('ends the grandchildren of a timed-out child too: none is left running', async () => {
      const middle = middleOverSlowChildren();

      const { rootRunId, events, output } = await run(parentOf(middle, { timeoutMs: 2500 }));

      expect(output.response).toBe('top answer');
      const middleId = `${rootRunId}/tool/3-call_middle`;
      expect(JSON.parse(sentToolResult(requestsOf(bed.server, 'You are the parent.')[1], 'call_middle'))).toMatchObject(
        { unavailable: true, agent: 'middle', error: expect.stringMatching(/^timed out/) },
      );
      for (const id of [middleId, `${middleId}/tool/3-call_left`, `${middleId}/tool/4-call_right`]) {
        expect((await bed.client.workflow.getHandle(id).describe()).status.name).toBe('CANCELLED');
        expect(
          eventsOf(events, id)
            .filter((e) => e.type.startsWith('RUN_'))
            .map((e) => e.type),
        ).toEqual(['RUN_STARTED', 'RUN_CANCELLED']);
      }
      // Each grandchild ended before the middle did, and the middle before the root went on.
      const at = (id: string) => events.findIndex((e) => e.runId === id && e.type === 'RUN_CANCELLED');
      expect(at(`${middleId}/tool/3-call_left`)).toBeLessThan(at(middleId));
      expect(at(`${middleId}/tool/4-call_right`)).toBeLessThan(at(middleId));
      expectWholeStream(events, rootRunId, 'RUN_COMPLETED');
    });

    it('reports the ends of two grandchildren that time out together under a nested parent, in one ordered stream', async () => {
      const middle = middleOverSlowChildren({ timeoutMs: 1500 }, text('middle answer'));

      const { rootRunId, events, output } = await run(parentOf(middle));

      expect(output.response).toBe('top answer');
      const middleId = `${rootRunId}/tool/3-call_middle`;
      for (const [step, side] of [
        [3, 'left'],
        [4, 'right'],
      ] as const) {
        expect(
          JSON.parse(sentToolResult(requestsOf(bed.server, 'You are the middle.')[1], `call_${side}`)),
        ).toMatchObject({ unavailable: true, agent: side });
        const lifecycle = eventsOf(events, `${middleId}/tool/${step}-call_${side}`).filter((e) =>
          e.type.startsWith('RUN_'),
        );
        expect(lifecycle.map((e) => [e.type, e.depth, e.parentRunId])).toEqual([
          ['RUN_STARTED', 2, middleId],
          ['RUN_CANCELLED', 2, middleId],
        ]);
      }
      expectWholeStream(events, rootRunId, 'RUN_COMPLETED');
      expect(events.find((e) => e.runId === middleId && e.type === 'RUN_COMPLETED')?.data).toMatchObject({
        response: 'middle answer',
      });
    });

    it("cancels the whole tree when the root is cancelled while a grandchild streams, ending the stream with the root's RUN_CANCELLED", async () => {
      const c = defineAgent({ name: 'c', instructions: 'You are agent C.' });
      const b = defineAgent({ name: 'b', instructions: 'You are agent B.', tools: [asTool(c, { description: 'C.' })] });
      const a = defineAgent({ name: 'a', instructions: 'You are agent A.', tools: [asTool(b, { description: 'B.' })] });
      bed.server.scriptFor('You are agent A.', toolCalls([toolCall('b', { task: 'b' }, { id: 'call_b' })]));
      bed.server.scriptFor('You are agent B.', toolCalls([toolCall('c', { task: 'c' }, { id: 'call_c' })]));
      let chunksSent = 0;
      bed.server.onChunk = () => chunksSent++;
      bed.server.scriptFor('You are agent C.', text('word '.repeat(200), { chunkSize: 5, delayMs: 100 }));
      const handle = await startRun(bed.client, bed.worker.taskQueue, { agent: a, input: 'go' });
      const bId = `${handle.workflowId}/tool/3-call_b`;
      const cId = `${bId}/tool/3-call_c`;

      await waitForEvent(bed.client, handle.workflowId, (e) => e.runId === cId && e.type === 'STEP_DELTA');
      await handle.cancel();
      const events = await readStream(bed.client, handle.workflowId);
      const err = await handle.result().then(
        () => undefined,
        (e: unknown) => e,
      );

      expect(err).toBeInstanceOf(WorkflowFailedError);
      expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expectWholeStream(events, handle.workflowId, 'RUN_CANCELLED');
      expect(events.filter((e) => e.type === 'RUN_CANCELLED').map((e) => [e.runId, e.depth])).toEqual([
        [cId, 2],
        [bId, 1],
        [handle.workflowId, 0],
      ]);
      for (const id of [handle.workflowId, bId, cId])
        expect((await bed.client.workflow.getHandle(id).describe()).status.name).toBe('CANCELLED');
      // The grandchild's model call was cancelled too: it hangs up (A's and B's answers ended) before its 200 chunks.
      await waitFor("the grandchild's model call to hang up", () => bed.server.abandoned.length > 0, 20_000);
      expect(chunksSent).toBeLessThan(150);
    });
  });

  describe('when a worker process is SIGKILLed while a child streams', () => {
    const workers = failoverWorkers();

    it('resumes the same child on a new worker without re-running its finished steps, and the parent completes', async () => {
      const taskQueue = uniqueId('kill-nested');
      const first = (workers.first = await startTestWorkerProcess({ taskQueue, model: model(), tools: ['record'] }));
      const bee = helper({ instructions: 'You are the worker bee.', tools: ['record'] });
      bed.server.scriptFor(
        'You are the parent.',
        toolCalls([toolCall('helper', { task: 'record, then report' }, { id: 'call_bee' })]),
        text('the parent is done'),
      );
      // A slow stream (~25 chunks 150 ms apart); the worker dies after its third chunk.
      const slow = slowAnswer(bed.server, 'a long answer that never arrives', 2);
      const killed = slow.reached.then(() => first.kill('SIGKILL'));
      bed.server.scriptFor(
        'You are the worker bee.',
        toolCalls([toolCall('record', { label: 'before the crash' }, { id: 'call_record' })]),
        slow.answer,
        text('the bee reports'),
      );
      const handle = await startRun(bed.client, taskQueue, {
        agent: parentOf(bee),
        input: 'go',
        context: { limits: { modelHeartbeatTimeoutMs: 2000 } },
      });
      const childRunId = `${handle.workflowId}/tool/3-call_bee`;

      await killed;
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
      workers.second = await startTestWorker({ model: model(), tools: testTools, taskQueue });
      const output = (await handle.result()) as RunOutput;

      expect(output.response).toBe('the parent is done');
      expect(sentToolResult(requestsOf(bed.server, 'You are the parent.')[1], 'call_bee')).toBe('the bee reports');
      // Requests per agent: the parent twice; the bee's first turn once, its killed turn twice (same conversation).
      expect(requestsOf(bed.server, 'You are the parent.')).toHaveLength(2);
      const beeRequests = requestsOf(bed.server, 'You are the worker bee.');
      expect(beeRequests).toHaveLength(3);
      expect(sentMessages(beeRequests[2])).toEqual(sentMessages(beeRequests[1]));
      expect(sentToolResult(beeRequests[2], 'call_record')).toBe('recorded before the crash');
      // One child workflow, the same id throughout; its tool ran once and only the killed model call was retried.
      expect(childStarts(await handle.fetchHistory()).map((s) => s.workflowId)).toEqual([childRunId]);
      const child = bed.client.workflow.getHandle(childRunId);
      expect((await child.describe()).status.name).toBe('COMPLETED');
      const childHistory = await child.fetchHistory();
      expect(activities(childHistory, 'callModel').map((c) => [c.completed, c.completedAttempt])).toEqual([
        [true, 1],
        [true, 2],
      ]);
      expect(activities(childHistory, 'runTool').map((c) => [c.completed, c.completedAttempt])).toEqual([[true, 1]]);
      // The stream: every step committed once, the retry announced, the root's completion last.
      const events = await readStream(bed.client, handle.workflowId);
      expectWholeStream(events, handle.workflowId, 'RUN_COMPLETED');
      const stepIds = events.filter((e) => e.type === 'STEP_COMPLETED').map((e) => e.stepId);
      expect(new Set(stepIds).size).toBe(stepIds.length);
      expect(stepIds.filter((id) => id?.startsWith(childRunId))).toEqual(
        [0, 1, 2, 3, 4].map((i) => `${childRunId}:${i}`),
      );
      expect(events.filter((e) => e.type === 'STEP_RETRY').map((e) => [e.runId, e.stepId, e.attempt])).toEqual([
        [childRunId, `${childRunId}:4`, 2],
      ]);
    });
  });
});
