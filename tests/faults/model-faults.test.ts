// Faults around the model call of a real agentRun: a rate limit retried after Retry-After, an auth error that
// fails the run at once, and a worker SIGKILLed mid-stream whose run another worker finishes without double steps.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { defineAgent, ErrorType } from '../../common';
import { recordedToolCalls, testTools } from '../fixtures/test-tools';
import { activities, runToEnd, sentMessages, startRun } from '../helpers/agent-runs';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { useTestBed } from '../helpers/test-bed';
import { startTestWorker, uniqueId } from '../helpers/temporal';
import { failoverWorkers, startTestWorkerProcess } from '../helpers/worker-process';

/** The messages of an error and of every cause below it, outermost first. */
function causeChain(err: unknown): { name: string; type?: string; message: string }[] {
  const chain: { name: string; type?: string; message: string }[] = [];
  for (let e = err; e instanceof Error; e = e.cause) {
    chain.push({
      name: e.constructor.name,
      ...(e instanceof ApplicationFailure && e.type ? { type: e.type } : {}),
      message: e.message,
    });
  }
  return chain;
}

describe('agentRun model faults', () => {
  const bed = useTestBed({ tools: testTools });
  const { model } = bed;

  describe('on an in-process worker', () => {
    it('retries a 429 after its Retry-After delay and completes', async () => {
      bed.server.script({ error: { status: 429, headers: { 'retry-after': '2' } } }, text('after the rate limit'));
      const agent = defineAgent({ name: 'patient' });

      const { output, handle } = await runToEnd(bed.client, bed.worker.taskQueue, { agent, input: 'hi' });

      expect(output.terminationReason).toBe('completed');
      expect(output.response).toBe('after the rate limit');
      expect(bed.server.requests).toHaveLength(2);
      expect(bed.server.requests[1].receivedAt - bed.server.requests[0].receivedAt).toBeGreaterThanOrEqual(1900);
      expect(output.steps.find((s) => s.role === 'assistant')?.metrics?.attempt).toBe(2);
      const [call] = activities(await handle.fetchHistory(), 'callModel');
      expect(call).toMatchObject({ completed: true, completedAttempt: 2 });
    });

    it('fails the run on a 401 without retrying it', async () => {
      bed.server.script({ error: { status: 401 } });
      const agent = defineAgent({ name: 'unauthorised' });

      const handle = await startRun(bed.client, bed.worker.taskQueue, { agent, input: 'hi' });
      const err = await handle.result().then(
        () => undefined,
        (e: unknown) => e,
      );

      expect(err).toBeInstanceOf(WorkflowFailedError);
      const chain = causeChain(err);
      expect(chain[1]).toMatchObject({
        name: 'ApplicationFailure',
        type: ErrorType.ModelAuthError,
        message: expect.stringContaining('401'),
      });
      // Below the workflow's failure: the callModel activity's own failure, classified as an auth error.
      const activity = chain.findIndex((c) => c.name === 'ActivityFailure');
      expect(activity).toBeGreaterThan(1);
      expect(chain[activity + 1]).toMatchObject({
        name: 'ApplicationFailure',
        type: ErrorType.ModelAuthError,
        message: expect.stringMatching(/HTTP 401\): scripted error 401 \(check OPENAI_API_KEY\)/),
      });
      expect(bed.server.requests).toHaveLength(1);
      expect((await handle.describe()).status.name).toBe('FAILED');
    });
  });

  describe('when a worker process is SIGKILLed in the middle of a model stream', () => {
    const workers = failoverWorkers();

    it('lets a new worker finish the run, committing every step exactly once', async () => {
      const taskQueue = uniqueId('kill');
      workers.first = await startTestWorkerProcess({ taskQueue, model: model(), tools: ['record'] });
      const calls = [toolCall('record', { label: 'after the crash' }, { id: 'call_record' })];
      bed.server.script(
        // A slow stream: ~20 chunks 150 ms apart; the worker dies after the third.
        toolCalls(calls, { chunkSize: 2, delayMs: 150 }),
        toolCalls(calls),
        text('finished by the second worker'),
      );
      const killed = new Promise<number>((resolve) => {
        bed.server.onChunk = ({ requestIndex, chunkIndex }) => {
          if (requestIndex === 0 && chunkIndex === 2) {
            workers.first!.kill('SIGKILL');
            resolve(chunkIndex + 1);
          }
        };
      });
      const agent = defineAgent({ name: 'survivor', tools: ['record'] });

      const handle = await startRun(bed.client, taskQueue, {
        agent,
        input: 'survive',
        context: { limits: { modelHeartbeatTimeoutMs: 2000 } },
      });
      const chunksBeforeKill = await killed;
      expect(await workers.first.exited).toEqual({ code: null, signal: 'SIGKILL' });
      workers.second = await startTestWorker({ model: model(), tools: testTools, taskQueue });
      const output = (await handle.result()) as Awaited<ReturnType<typeof runToEnd>>['output'];

      expect(chunksBeforeKill).toBe(3);
      expect(output.terminationReason).toBe('completed');
      expect(output.response).toBe('finished by the second worker');
      // Steps: unique ids, indexes 0..n-1 in order, one assistant step per model turn.
      expect(output.steps.map((s) => s.index)).toEqual([0, 1, 2, 3]);
      expect(output.steps.map((s) => s.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(new Set(output.steps.map((s) => s.id)).size).toBe(output.steps.length);
      expect(output.steps.map((s) => s.id)).toEqual(output.steps.map((s) => `${handle.workflowId}:${s.index}`));
      // The killed stream was retried as attempt 2 of the same activity; each model step completed exactly once.
      const history = await handle.fetchHistory();
      const modelCalls = activities(history, 'callModel');
      expect(modelCalls.map((c) => [c.completed, c.completedAttempt])).toEqual([
        [true, 2],
        [true, 1],
      ]);
      expect(modelCalls.length).toBe(output.steps.filter((s) => s.role === 'assistant').length);
      expect(output.steps[1].metrics?.attempt).toBe(2);
      expect(activities(history, 'runTool').map((c) => c.completed)).toEqual([true]);
      expect(recordedToolCalls.filter((c) => c.runId === handle.workflowId).map((c) => c.label)).toEqual([
        'after the crash',
      ]);
      // The retry sent the same conversation; the third request carries the one tool result.
      expect(bed.server.requests).toHaveLength(3);
      expect(sentMessages(bed.server.requests[1])).toEqual(sentMessages(bed.server.requests[0]));
      expect(sentMessages(bed.server.requests[2]).filter((m) => m.role === 'tool')).toEqual([
        { role: 'tool', tool_call_id: 'call_record', content: 'recorded after the crash' },
      ]);
    });
  });
});
