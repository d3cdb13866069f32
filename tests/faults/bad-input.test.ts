// Workflow input that fails validation ends the run: started with the Temporal CLI (as an operator or another SDK
// would, with no AgioClient to check it first), an agentRun or loopAgentRun with bad input fails at once with a
// non-retryable InvalidRunInput naming the bad fields, and its stream ends with RUN_FAILED. Before, zod's error failed
// the first workflow task again and again: the run hung, and its stream never ended.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { ErrorType, type AgioEvent } from '../../common';
import { findBinary } from '../../devkit/install-binary';
import { TEMPORAL_CLI } from '../../devkit/temporal-server';
import { useTestBed } from '../helpers/test-bed';
import { testEnv } from '../helpers/test-env';

const run = promisify(execFile);

/** `temporal workflow start` of `type` with `input` (JSON) on the test bed's task queue; returns the workflow id. */
async function startWithCli(type: string, taskQueue: string, input: unknown): Promise<string> {
  const cli = findBinary(TEMPORAL_CLI);
  if (!cli) throw new Error('the Temporal CLI is missing: the global setup should have installed it');
  const workflowId = `cli-bad-input-${type}-${Math.random().toString(36).slice(2)}`;
  await run(cli, [
    'workflow',
    'start',
    '--address',
    testEnv('temporalAddress'),
    '--namespace',
    'default',
    '--task-queue',
    taskQueue,
    '--type',
    type,
    '--workflow-id',
    workflowId,
    '--input',
    JSON.stringify(input),
  ]);
  return workflowId;
}

describe('bad workflow input', () => {
  const bed = useTestBed();

  async function expectInvalidInput(workflowId: string, fields: string[]): Promise<void> {
    const err: unknown = await bed.client.workflow
      .getHandle(workflowId)
      .result()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe(ErrorType.InvalidRunInput);
    expect(cause.nonRetryable).toBe(true);
    for (const field of fields) expect(cause.message).toContain(field);

    const events: AgioEvent[] = [];
    for await (const event of bed.agio.getHandle(workflowId).stream()) events.push(event);
    expect(events.map((e) => e.type)).toEqual(['RUN_FAILED']);
    expect(events[0].data).toMatchObject({ error: { type: ErrorType.InvalidRunInput } });
    for (const field of fields) expect(JSON.stringify(events[0].data)).toContain(field);

    const history = await bed.client.workflow.getHandle(workflowId).fetchHistory();
    expect(history.events?.filter((e) => e.workflowTaskFailedEventAttributes)).toHaveLength(0);
  }

  it('agentRun with a wrong agent and input fails clearly, once', async () => {
    const id = await startWithCli('agentRun', bed.worker.taskQueue, {
      agent: { name: 'cli-agent', instructions: 7 },
      input: 42,
    });
    await expectInvalidInput(id, ['agent.instructions', 'input']);
  }, 30_000);

  it('a workflow agent with no sub-agents list fails clearly, once', async () => {
    const id = await startWithCli('loopAgentRun', bed.worker.taskQueue, {
      agent: { kind: 'loop', name: 'cli-loop' },
      input: 'go',
    });
    await expectInvalidInput(id, ['agent.subAgents']);
  }, 30_000);
});
