// Upgrading Agio under running runs (docs/ARCHITECTURE.md, "Long-lived runs"), on a real dev server: runs start on
// release A — one paused, one waiting for an approval, one mid-loop, one lead whose child is running — then release B
// is deployed on the same task queue and promoted. B's workflow code differs as a release's would (a new event before
// each run's first one, and a changed limit default), so replaying an A history on B would fail. Runs stay pinned to A
// until their next safe point, continue as new onto B there (the paused run at once, still paused), A drains and its
// worker stops, and every run completes on B without a nondeterminism error.
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { asTool, defineAgent, WorkflowType, type AgioEvent, type AgentRunInput, type RunOutput } from '../../common';
import { runVersionOf } from '../../client/run-version';
import { text, toolCall, toolCalls, type ScriptedModelServer } from '../../devkit/scripted-model-server';
import { listDeploymentVersions, promote } from '../../worker/deployment-versions';
import { testTools } from '../fixtures/test-tools';
import { RELEASE_B_MAX_STEPS } from '../fixtures/release-b/run-context';
import { heldAnswer, startInput, type History } from '../helpers/agent-runs';
import { askingAgent, keyOf, waitForAsk } from '../helpers/approvals';
import { readStream, requestsOf, waitForEvent } from '../helpers/nested-runs';
import { releaseBBundle } from '../helpers/release-b';
import { startTestWorker, uniqueId, type TestWorker } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';
import { AgioClient } from '../../client/agio-client';

/** How long each wait of the upgrade may take on a loaded machine. */
const TIMEOUT_MS = 60_000;
const agent = (name: string, tools: string[] = ['record']) =>
  defineAgent({ name, instructions: `You are ${name}.`, tools });

describe('upgrading from release A to release B under running runs', () => {
  const bed = useTestBed({ worker: false, tools: testTools });
  const workers: TestWorker[] = [];
  afterAll(async () => {
    for (const w of workers) await w.stop().catch(() => undefined);
  });

  it('keeps every run pinned until its safe point, moves it to B there, drains A and completes every run on B', async () => {
    const taskQueue = uniqueId('upgrade');
    const workerA = await startTestWorker({ taskQueue, model: bed.model(), tools: testTools });
    workers.push(workerA);
    await workerA.current;
    const agio = new AgioClient(bed.client, { taskQueue });

    // 1. Paused: parked at the safe point after its first turn.
    const paused = agent('upg-paused');
    const pausedFirst = heldAnswer(toolCalls([toolCall('record', { label: 'paused run' })]));
    bed.server.scriptFor(keyOf(paused), pausedFirst.answer, text('paused run done'));
    const pausedRun = await agio.start(paused, 'work, then wait');
    const parked = pausedRun.pause({ reason: 'deploy', by: 'ops' });
    await waitForEvent(bed.client, pausedRun.runId, (e) => e.type === 'RUN_STARTED');
    pausedFirst.release();
    expect(await parked).toMatchObject({ paused: true, parked: true });

    // 2. Waiting for an approval.
    const asker = askingAgent('upg-asker');
    bed.server.scriptFor(
      keyOf(asker),
      toolCalls([toolCall('record', { label: 'approved' }, { id: 'call_upg' })]),
      text('approval run done'),
    );
    const askerRun = await agio.start(asker, 'record with approval');
    await waitForAsk(bed.client, askerRun.runId, 'call_upg');

    // 3. Mid-loop, started as another SDK would (no limits: release A's code resolves them), its second model call in
    // flight.
    const looper = agent('upg-looper');
    const looperSecond = heldAnswer(toolCalls([toolCall('record', { label: 'loop 2' })]));
    bed.server.scriptFor(
      keyOf(looper),
      toolCalls([toolCall('record', { label: 'loop 1' })]),
      looperSecond.answer,
      text('loop done'),
    );
    const looperId = uniqueId('upg-looper');
    const looperInput: AgentRunInput = { agent: looper, input: 'loop a while' } as AgentRunInput;
    await bed.client.workflow.start(WorkflowType.agentRun, {
      taskQueue,
      workflowId: looperId,
      args: [looperInput],
      memo: { tenant: 'default', agent: looper.name },
    });
    await waitForModelCall(bed.server, keyOf(looper), 2);

    // 4. A lead whose child (an agent used as a tool) is running its second model call.
    const child = agent('upg-child');
    const lead = defineAgent({
      name: 'upg-lead',
      instructions: 'You are upg-lead.',
      tools: [asTool(child, { name: 'ask_child', description: 'asks the child' })],
    });
    const childSecond = heldAnswer(toolCalls([toolCall('record', { label: 'child 2' })]));
    bed.server.scriptFor(
      keyOf(child),
      toolCalls([toolCall('record', { label: 'child 1' })]),
      childSecond.answer,
      text('child done'),
    );
    bed.server.scriptFor(
      keyOf(lead),
      toolCalls([toolCall('ask_child', { task: 'help' }, { id: 'call_child' })]),
      text('lead done'),
    );
    const leadRun = await agio.start(lead, 'lead the work');
    await waitForModelCall(bed.server, keyOf(child), 2);
    const rootIds = [pausedRun.runId, askerRun.runId, looperId, leadRun.runId];
    const childId = (await runningIds(taskQueue)).find((id) => !rootIds.includes(id));
    expect(childId).toBeDefined();
    const runIds = [...rootIds, childId!];
    const versionA = workerA.version!.buildId;
    for (const id of runIds) expect((await versionOf(id))?.buildId).toBe(versionA);

    // Deploy B: its worker polls the same task queue beside A's, and A stays current until B is promoted.
    const workerB = await startTestWorker({
      taskQueue,
      model: bed.model(),
      tools: testTools,
      workflowBundle: await releaseBBundle(),
      versioning: { makeCurrent: false },
    });
    workers.push(workerB);
    const versionB = workerB.version!.buildId;
    expect(versionB).not.toBe(versionA);
    // What `agio versions` shows now: A current with the five runs pinned to it, B polling but not current.
    await waitFor(
      'the versions listing to show A current with five runs, and B',
      async () => {
        const versions = await listDeploymentVersions(bed.connection, bed.client, 'default', taskQueue);
        return (
          versions.some((v) => v.buildId === versionB && !v.current) &&
          versions.some((v) => v.buildId === versionA && v.current && v.openRuns === runIds.length)
        );
      },
      TIMEOUT_MS,
    );
    // Promoting B makes it current and asks the runs pinned to A to move.
    const { asked } = await promote(bed.connection, 'default', taskQueue, versionB);
    expect(asked.map((a) => a.workflowId).sort()).toEqual([...runIds].sort());

    // The paused run moves at once, still paused and parked.
    await waitFor(
      'the paused run to move to B',
      async () => (await versionOf(pausedRun.runId))?.buildId === versionB,
      TIMEOUT_MS,
    );
    expect(await pausedRun.state()).toMatchObject({
      paused: true,
      parked: true,
      version: { buildId: versionB, behavior: 'pinned' },
    });
    // New runs start on B: one with no limits of its own gets B's default step budget.
    const fresh = agent('upg-fresh');
    bed.server.scriptFor(
      keyOf(fresh),
      ...Array.from({ length: RELEASE_B_MAX_STEPS }, () => toolCalls([toolCall('record', { label: 'again' })])),
      text('out of steps'),
    );
    const freshHandle = await bed.client.workflow.start(WorkflowType.agentRun, {
      taskQueue,
      workflowId: uniqueId('upg-fresh'),
      args: [{ agent: fresh, input: 'go on' } as AgentRunInput],
      memo: { tenant: 'default', agent: fresh.name },
    });

    // The others finish their turn on A and move at its end.
    await askerRun.approve('call_upg', { by: 'ops' });
    looperSecond.release();
    childSecond.release();
    const [askerOut, looperOut, leadOut] = await Promise.all([
      askerRun.result(),
      bed.client.workflow.getHandle(looperId).result() as Promise<RunOutput>,
      leadRun.result(),
    ]);
    expect([askerOut.response, looperOut.response, leadOut.response]).toEqual([
      'approval run done',
      'loop done',
      'lead done',
    ]);

    // Nothing is pinned to A any more: it drains, and its worker stops.
    await waitFor('release A to drain', async () => (await versionStatus(versionA)) === 5 /* DRAINED */, TIMEOUT_MS);
    await workerA.stop();

    // The paused run resumes on B alone and completes.
    await pausedRun.resume({ by: 'ops' });
    expect((await pausedRun.result()).response).toBe('paused run done');
    const freshOut = (await freshHandle.result()) as RunOutput;
    expect(freshOut).toMatchObject({
      terminationReason: 'max_steps',
      metrics: { modelCalls: RELEASE_B_MAX_STEPS + 1 },
    });

    for (const id of runIds) {
      const executions = await executionsOf(id);
      // Each began on A (pinned there) and ended on B, after continuing as new; none ever failed a workflow task.
      expect(executions.length).toBeGreaterThanOrEqual(2);
      expect(runVersionOf(executions[0].description)).toMatchObject({ buildId: versionA, behavior: 'pinned' });
      expect(runVersionOf(executions[executions.length - 1].description)).toMatchObject({
        buildId: versionB,
        behavior: 'pinned',
      });
      for (const { history } of executions) expect(failedWorkflowTasks(history)).toEqual([]);
    }
    // The run started without limits keeps release A's default (10 steps) on B, where new such runs get 3.
    const looperOnB = (await executionsOf(looperId)).at(-1)!;
    expect(startInput<AgentRunInput>(looperOnB.history).context?.limits?.maxSteps).toBe(10);
    // Release B's new event shows in every moved run's stream, the child's included (sent to its root on A).
    const released = (events: AgioEvent[], runId: string) =>
      events.some(
        (e) => e.runId === runId && e.type === 'AGENT_STATE' && (e.data as Record<string, unknown>).release === 'B',
      );
    expect(released(await readStream(bed.client, pausedRun.runId), pausedRun.runId)).toBe(true);
    const leadEvents = await readStream(bed.client, leadRun.runId);
    expect(released(leadEvents, leadRun.runId) && released(leadEvents, childId!)).toBe(true);
  }, 180_000);

  async function versionOf(workflowId: string) {
    return runVersionOf(await bed.client.workflow.getHandle(workflowId).describe());
  }

  async function versionStatus(buildId: string): Promise<number | undefined> {
    const { workerDeploymentInfo } = await bed.connection.workflowService.describeWorkerDeployment({
      namespace: 'default',
      deploymentName: workers[0].version!.deploymentName,
    });
    return (
      workerDeploymentInfo?.versionSummaries?.find((v) => v.deploymentVersion?.buildId === buildId)?.status ?? undefined
    );
  }

  function runningIds(taskQueue: string): Promise<string[]> {
    return waitFor(
      'five running runs in visibility',
      async () => {
        const ids: string[] = [];
        for await (const e of bed.client.workflow.list({
          query: `TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running"`,
        }))
          ids.push(e.workflowId);
        return ids.length >= 5 && ids;
      },
      TIMEOUT_MS,
    );
  }

  async function executionsOf(
    workflowId: string,
  ): Promise<{ description: WorkflowExecutionDescription; history: History }[]> {
    const runs: { runId: string; start: number }[] = [];
    for await (const e of bed.client.workflow.list({ query: `WorkflowId = "${workflowId}"` }))
      runs.push({ runId: e.runId, start: e.startTime.getTime() });
    runs.sort((a, b) => a.start - b.start);
    return Promise.all(
      runs.map(async ({ runId }) => {
        const handle = bed.client.workflow.getHandle(workflowId, runId);
        return { description: await handle.describe(), history: await handle.fetchHistory() };
      }),
    );
  }
});

function failedWorkflowTasks(history: History): string[] {
  return (history.events ?? [])
    .filter((e) => e.workflowTaskFailedEventAttributes)
    .map((e) => e.workflowTaskFailedEventAttributes?.failure?.message ?? 'failed');
}

async function waitForModelCall(server: ScriptedModelServer, key: string, count: number): Promise<void> {
  await waitFor(`model call ${count} of ${key}`, () => requestsOf(server, key).length >= count, TIMEOUT_MS);
}
