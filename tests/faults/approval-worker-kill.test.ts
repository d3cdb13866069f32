// A pending approval outlives its worker (docs/ARCHITECTURE.md, "Approvals": the wait is durable): the worker process
// is SIGKILLed while a call waits for a decision, a new worker takes over, and an approval sent after the restart still
// lets the tool run once and the run complete.
import { AgioClient } from '../../client/agio-client';
import type { RunOutput } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { activities, sentToolResult } from '../helpers/agent-runs';
import { askingAgent, authTrail, keyOf, recordsOf, waitForAsk } from '../helpers/approvals';
import { expectWholeStream, readStream, requestsOf } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';
import { startTestWorker, uniqueId } from '../helpers/temporal';
import { failoverWorkers, killWorkerProcess, startTestWorkerProcess } from '../helpers/worker-process';

describe('a pending approval across a worker crash', () => {
  const bed = useTestBed({ worker: false });
  const workers = failoverWorkers();

  it('still takes an approval sent after the worker was SIGKILLed and replaced, runs the tool once and completes', async () => {
    const taskQueue = uniqueId('approval-kill');
    const model = bed.model();
    const first = (workers.first = await startTestWorkerProcess({ taskQueue, model, tools: ['record'] }));
    const agent = askingAgent('crash-asker');
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'after the crash' }, { id: 'call_k' })]),
      text('survived the crash'),
    );
    const agio = new AgioClient(bed.client, { taskQueue });
    const run = await agio.start(agent, 'record something');
    await waitForAsk(bed.client, run.runId, 'call_k');

    await killWorkerProcess(first);
    expect(activities(await run.workflow.fetchHistory(), 'runTool')).toEqual([]);
    workers.second = await startTestWorker({ model, tools: testTools, taskQueue });
    const approvedAt = Date.now();
    expect(await run.approve('call_k', { by: 'after-restart' })).toEqual({ toolCallId: 'call_k', decision: 'approve' });
    const output: RunOutput = await run.result();

    expect(output.response).toBe('survived the crash');
    // The tool ran once, in the new worker (this process), after the approval.
    const records = recordsOf(run.runId);
    expect(records.map((r) => r.label)).toEqual(['after the crash']);
    expect(records[0].startedAt).toBeGreaterThanOrEqual(approvedAt);
    expect(
      activities(await run.workflow.fetchHistory(), 'runTool').map((a) => [a.completed, a.completedAttempt]),
    ).toEqual([[true, 1]]);
    expect(requestsOf(bed.server, keyOf(agent))).toHaveLength(2);
    expect(sentToolResult(requestsOf(bed.server, keyOf(agent))[1], 'call_k')).toBe('recorded after the crash');
    const events = await readStream(bed.client, run.runId);
    expectWholeStream(events, run.runId);
    expect(authTrail(events)).toEqual([
      ['TOOL_AUTH_REQUIRED', 'call_k'],
      ['TOOL_AUTH_GRANTED', 'call_k'],
    ]);
    expect(events.find((e) => e.type === 'TOOL_AUTH_GRANTED')?.data).toMatchObject({ by: 'after-restart' });
  });
});
