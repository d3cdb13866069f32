// A rollout from release A to release B and a rollback, on a real dev server, with promotion as the operator's act
// (`agio versions promote`): a B worker does not make itself current, promoting B asks the runs pinned to A to move
// (a paused run moves at once, an approval-waiting one at the end of its turn), a restarted A worker does not take the
// deployment back, and promoting A again is refused without --force.
import { defineAgent } from '../../common';
import { runVersionOf } from '../../client/run-version';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { versionsCommand } from '../../cli/versions';
import { describeDeployment, OlderVersionError } from '../../worker/promotion';
import { testTools } from '../fixtures/test-tools';
import { heldAnswer } from '../helpers/agent-runs';
import { askingAgent, keyOf, waitForAsk } from '../helpers/approvals';
import { waitForEvent } from '../helpers/nested-runs';
import { releaseBBundle } from '../helpers/release-b';
import { startTestWorker, uniqueId, type TestWorker } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';
import { testEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/workflow-agents';
import { AgioClient } from '../../client/agio-client';

const TIMEOUT_MS = 60_000;

describe('rolling out release B and back, with promotion by an operator', () => {
  const bed = useTestBed({ worker: false, tools: testTools });
  const workers: TestWorker[] = [];
  afterAll(async () => {
    for (const w of workers) await w.stop().catch(() => undefined);
  });

  /** Runs `agio versions …` in this process against the test server; returns its exit code and what it printed. */
  async function agioVersions(...args: string[]): Promise<{ code: number; out: string }> {
    const lines: string[] = [];
    const keep = (...parts: unknown[]) => void lines.push(parts.join(' '));
    const spies = (['log', 'warn', 'error'] as const).map((m) => jest.spyOn(console, m).mockImplementation(keep));
    const saved = process.env.TEMPORAL_ADDRESS;
    process.env.TEMPORAL_ADDRESS = testEnv('temporalAddress');
    try {
      return { code: await versionsCommand(args), out: lines.join('\n') };
    } finally {
      process.env.TEMPORAL_ADDRESS = saved;
      for (const spy of spies) spy.mockRestore();
    }
  }

  it('promotes only by command, moves runs pinned to A, never rolls back by a restart, and refuses an unforced rollback', async () => {
    const taskQueue = uniqueId('rollout');
    const currentBuild = async () => (await describeDeployment(bed.connection, 'default', taskQueue))?.current;
    const versionOf = async (id: string) => runVersionOf(await bed.client.workflow.getHandle(id).describe());
    const startA = async () => {
      const worker = await startTestWorker({ taskQueue, model: bed.model(), tools: testTools });
      workers.push(worker);
      return worker;
    };

    // Release A: the deployment's first worker (nothing is current yet), so it becomes current.
    const workerA = await startA();
    await workerA.current;
    const versionA = workerA.version!.buildId;
    expect(await currentBuild()).toBe(versionA);
    const agio = new AgioClient(bed.client, { taskQueue });

    // A paused run, parked after its first turn, and a run waiting for an approval, both pinned to A.
    const paused = defineAgent({ name: 'roll-paused', instructions: 'You are roll-paused.', tools: ['record'] });
    const first = heldAnswer(toolCalls([toolCall('record', { label: 'before the pause' })]));
    bed.server.scriptFor(keyOf(paused), first.answer, text('paused run done'));
    const pausedRun = await agio.start(paused, 'work, then wait');
    const parked = pausedRun.pause({ reason: 'deploy', by: 'ops' });
    await waitForEvent(bed.client, pausedRun.runId, (e) => e.type === 'RUN_STARTED');
    first.release();
    expect(await parked).toMatchObject({ paused: true, parked: true });
    const asker = askingAgent('roll-asker');
    bed.server.scriptFor(
      keyOf(asker),
      toolCalls([toolCall('record', { label: 'approved' }, { id: 'call_roll' })]),
      text('approval run done'),
    );
    const askerRun = await agio.start(asker, 'record with approval');
    await waitForAsk(bed.client, askerRun.runId, 'call_roll');
    for (const id of [pausedRun.runId, askerRun.runId]) expect((await versionOf(id))?.buildId).toBe(versionA);

    // Release B's worker starts as the worker main does by default: it polls, but A stays current.
    const workerB = await startTestWorker({
      taskQueue,
      model: bed.model(),
      tools: testTools,
      workflowBundle: await releaseBBundle(),
      versioning: { makeCurrent: 'first' },
    });
    workers.push(workerB);
    const versionB = workerB.version!.buildId;
    expect(versionB).not.toBe(versionA);
    expect(await workerB.current).toMatchObject({ changed: false, previous: versionA, asked: [] });
    expect(await currentBuild()).toBe(versionA);

    // The operator promotes B: it becomes current and both runs pinned to A are asked to move.
    const promoted = await agioVersions('promote', versionB, '--deployment', taskQueue);
    expect(promoted).toMatchObject({ code: 0 });
    expect(promoted.out).toContain(`current version ${versionB} (was ${versionA})`);
    expect(promoted.out).toContain('asked 2 open run(s)');
    expect(await currentBuild()).toBe(versionB);
    // `agio versions` lists the newest build first, marked current.
    const listed = (await agioVersions('--deployment', taskQueue)).out.split('\n');
    expect(listed[0]).toMatch(new RegExp(`^\\* ${versionB} +current +first polled`));
    expect(listed[1]).toMatch(new RegExp(`^  ${versionA} +draining`));
    // The paused run moves at once, still paused and parked.
    await waitFor(
      'the paused run to move to B',
      async () => (await versionOf(pausedRun.runId))?.buildId === versionB,
      TIMEOUT_MS,
    );
    expect(await pausedRun.state()).toMatchObject({ paused: true, parked: true, version: { buildId: versionB } });

    // An A pod restarts (told to promote itself, as the tests' workers are): it is older, so B stays current.
    await workerA.stop();
    const restartedA = await startA();
    await expect(restartedA.current).rejects.toBeInstanceOf(OlderVersionError);
    expect(await currentBuild()).toBe(versionB);

    // Promoting A again is a rollback: refused without --force.
    const refused = await agioVersions('promote', versionA, '--deployment', taskQueue);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain(`${versionA} is older than the current version ${versionB}`);
    expect(await currentBuild()).toBe(versionB);

    // The approval-waiting run finishes its turn on A and moves to B at its end; the paused one resumes on B.
    await askerRun.approve('call_roll', { by: 'ops' });
    expect((await askerRun.result()).response).toBe('approval run done');
    expect(await versionOf(askerRun.runId)).toMatchObject({ buildId: versionB, behavior: 'pinned' });
    await pausedRun.resume({ by: 'ops' });
    expect((await pausedRun.result()).response).toBe('paused run done');
    expect(await versionOf(pausedRun.runId)).toMatchObject({ buildId: versionB, behavior: 'pinned' });

    // A forced rollback is done, and says so.
    const rollback = await agioVersions('promote', versionA, '--force', '--deployment', taskQueue);
    expect(rollback.code).toBe(0);
    expect(rollback.out).toContain(`forced rollback from ${versionB} to the older ${versionA}`);
    expect(await currentBuild()).toBe(versionA);
  }, 180_000);
});
