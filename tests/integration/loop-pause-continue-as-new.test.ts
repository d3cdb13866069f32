// A loop carries a pause across continue-as-new (docs/ARCHITECTURE.md, "Workflow agents and operator control"): a
// pause that arrives while the loop writes its event log right before continuing as new used to be lost (the loop had
// already passed its safe point); now the loop parks, stays paused (state query), resumes, and its log holds the
// whole stream, RUN_PAUSED and RUN_RESUMED included.
import { RunSearchAttributes, loopAgent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { createMemoryStores, type Stores } from '../../stores';
import { readStream, expectWholeLogs, expectStoredLogs } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';
import { agentKey, agentOfRequest, runChain, subAgent, waitFor } from '../helpers/workflow-agents';

const ITERATIONS = 3;

/** Memory stores whose event-log writes can be held: `hold()` makes the next write wait until it is released. */
function storesWithHeldLogWrite(): { stores: Stores; hold(): { reached: Promise<void>; release(): void } } {
  const stores = createMemoryStores();
  const real = stores.events.append.bind(stores.events);
  let held: { reach(): void; released: Promise<void> } | undefined;
  stores.events.append = async (...args) => {
    const h = held;
    held = undefined;
    if (h) {
      h.reach();
      await h.released;
    }
    return real(...args);
  };
  return {
    stores,
    hold() {
      let reach!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((resolve) => (reach = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      held = { reach, released };
      return { reached, release };
    },
  };
}

describe('a pause at the continue-as-new point of a loop', () => {
  const log = storesWithHeldLogWrite();
  const bed = useTestBed({ stores: async () => ({ stores: log.stores, close: async () => undefined }) });

  it('is not lost: the loop stays paused across the seam, resumes, and its log holds the whole stream', async () => {
    for (let i = 0; i < ITERATIONS; i++) bed.server.scriptFor(agentKey('tick'), text(`tick ${i}`));
    const loop = loopAgent({
      name: 'seam',
      subAgents: [subAgent('tick')],
      maxIterations: ITERATIONS,
      continueAsNewEvery: 1,
    });
    // The loop's first event-log write is the one right before its first continue-as-new (after iteration 0).
    const write = log.hold();
    // Started with a short workflow-task timeout, so a write of a couple of seconds outlasts a task (see below).
    const runId = `run-seam-${Date.now()}`;
    await bed.client.workflow.start('loopAgentRun', {
      taskQueue: bed.worker.taskQueue,
      workflowId: runId,
      workflowTaskTimeout: '2s',
      args: [{ agent: loop, input: 'tick tock', context: { tenant: 'default' } }],
      typedSearchAttributes: [
        { key: RunSearchAttributes.tenant, value: 'default' },
        { key: RunSearchAttributes.agent, value: loop.name },
        { key: RunSearchAttributes.rootRunId, value: runId },
      ],
    });
    const run = bed.agio.getHandle(runId);
    await write.reached;
    // A signal that comes in the workflow task running the write is seen on that task's retry, before the loop gets
    // back to its continue-as-new. The window is a slow write (a store outage, say): once the worker has kept the task
    // alive (it completes it and takes a new one past 80% of the task timeout), a signal reaches the loop while it
    // still awaits the write. Pause then, and release the write once the pause has reached the loop.
    const history = async () => (await bed.client.workflow.getHandle(run.runId).fetchHistory()).events ?? [];
    const writing = (await history()).length;
    await waitFor('the write to outlast a workflow task', async () =>
      (await history()).slice(writing).some((e) => e.workflowTaskCompletedEventAttributes),
    );
    await run.pause({ reason: 'at the seam', by: 'ops' }, { wait: false });
    await waitFor('the pause to reach the loop', async () => {
      const events = await history();
      const signalled = events.findIndex((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'pause');
      return signalled > 0 && events.slice(signalled).some((e) => e.workflowTaskStartedEventAttributes);
    });
    write.release();

    const state = await waitFor(
      'the loop to park',
      async () => {
        const s = await run.state();
        return s.parked && s;
      },
      15_000,
    );
    expect(state).toMatchObject({ paused: true, parked: true, pausedBy: 'ops', pauseReason: 'at the seam' });
    expect(bed.server.requests.map(agentOfRequest)).toEqual(['tick']);

    await run.resume({ by: 'ops' });
    const output = await run.result();
    expect(output).toMatchObject({ terminationReason: 'max_iterations', response: `tick ${ITERATIONS - 1}` });
    expect(bed.server.requests.map(agentOfRequest)).toEqual(['tick', 'tick', 'tick']);
    const chain = await runChain(bed.client, run.runId);
    expect(chain.map((r) => r.status)).toEqual(['CONTINUED_AS_NEW', 'CONTINUED_AS_NEW', 'COMPLETED']);

    const events = await readStream(bed.client, run.runId);
    expectWholeLogs(events); // every event of every run's own log once, in order
    const control = events.filter((e) => e.type === 'RUN_PAUSED' || e.type === 'RUN_RESUMED');
    expect(control.map((e) => [e.type, e.depth, e.data])).toEqual([
      ['RUN_PAUSED', 0, { reason: 'at the seam', by: 'ops' }],
      ['RUN_RESUMED', 0, { by: 'ops' }],
    ]);
    // The pause came after the log write it interrupted: the next run wrote those events to the log.
    await expectStoredLogs(log.stores.events, 'default', events);
  });
});
