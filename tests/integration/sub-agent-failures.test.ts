// A workflow agent whose sub-agents failed says so (docs/ARCHITECTURE.md, "Workflow agents and operator control"): a
// parallel agent whose every branch failed fails with SubAgentsFailed listing them (it used to complete); one with
// some failed branches completes with status `completed_with_failures`, listing them in RUN_COMPLETED, its RunOutput
// and its state query; a sequence fails with SubAgentsFailed naming its failed sub-agent, and runs none after it.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { parallelAgent, sequentialAgent, type SubAgentFailure } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { readStream } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';
import { agentKey, agentOfRequest, subAgent, waitFor } from '../helpers/workflow-agents';

const refused = { error: { status: 401 } };
/** What a failure of sub-agent `name` (a model answering 401) looks like under `prefix`. */
const failureOf = (prefix: string, name: string): SubAgentFailure => ({
  agent: name,
  runId: `${prefix}-${name}`,
  error: { type: expect.any(String), message: expect.stringContaining('401') },
});

/** The failure a run ended with (it must have failed). */
async function failureOfRun(result: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await result.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  return (err as WorkflowFailedError).cause as ApplicationFailure;
}

describe('a workflow agent whose sub-agents failed', () => {
  const bed = useTestBed();

  it('fails when every branch of a parallel agent failed, listing them in the error and RUN_FAILED', async () => {
    const names = ['a', 'b', 'c', 'd', 'e'];
    for (const name of names) bed.server.scriptFor(agentKey(name), refused);
    const run = await bed.agio.start(
      parallelAgent({ name: 'all-fail', subAgents: names.map((n) => subAgent(n)) }),
      'go',
    );

    const failure = await failureOfRun(run.result());
    expect(failure.type).toBe('SubAgentsFailed');
    expect(failure.message).toMatch(/^all 5 sub-agents failed: a \(/);
    const events = await readStream(bed.client, run.runId);
    const failures = names.map((n, i) => failureOf(`${run.runId}/branch/${i}`, n));
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_FAILED',
      depth: 0,
      data: { error: { type: 'SubAgentsFailed' }, failures },
    });
    expect(events.filter((e) => e.type === 'RUN_COMPLETED' && e.depth === 0)).toEqual([]);
  });

  it('completes with failures when some branches failed: RUN_COMPLETED, RunOutput and the state query list them', async () => {
    bed.server.scriptFor(agentKey('left'), text('left result, slowly written', { chunkSize: 1, delayMs: 60 }));
    bed.server.scriptFor(agentKey('middle'), refused);
    bed.server.scriptFor(agentKey('right'), text('right result'));
    const fan = parallelAgent({
      name: 'some-fail',
      subAgents: [subAgent('left'), subAgent('middle'), subAgent('right')],
    });
    const run = await bed.agio.start(fan, 'go');
    const middle = failureOf(`${run.runId}/branch/1`, 'middle');

    // While left still streams, the state query already shows the failed branch.
    const running = await waitFor('the failed branch in the state', async () => {
      const state = await run.state();
      return state.failures?.length && state;
    });
    expect(running).toMatchObject({ status: 'running', failures: [middle] });

    const output = await run.result();
    expect(output).toMatchObject({ terminationReason: 'completed', failures: [middle] });
    expect(output.response).toContain('[left]\nleft result, slowly written');
    const events = await readStream(bed.client, run.runId);
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_COMPLETED',
      depth: 0,
      data: { status: 'completed_with_failures', failures: [middle] },
    });
    expect(await run.state()).toMatchObject({ status: 'completed', failures: [middle] });
  });

  it('fails a sequence with SubAgentsFailed naming the failed sub-agent, and runs none after it', async () => {
    bed.server.scriptFor(agentKey('first'), text('first done'));
    bed.server.scriptFor(agentKey('second'), refused);
    const seq = sequentialAgent({
      name: 'chain',
      subAgents: [subAgent('first'), subAgent('second'), subAgent('third')],
    });
    const run = await bed.agio.start(seq, 'go');

    const failure = await failureOfRun(run.result());
    expect(failure.type).toBe('SubAgentsFailed');
    expect(failure.message).toMatch(/^sub-agent second failed: second \(.*401/);
    const events = await readStream(bed.client, run.runId);
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_FAILED',
      data: { error: { type: 'SubAgentsFailed' }, failures: [failureOf(`${run.runId}/seq/1`, 'second')] },
    });
    expect(bed.server.requests.map(agentOfRequest)).toEqual(['first', 'second']);
  });
});
