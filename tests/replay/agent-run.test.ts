// Replays recorded agentRun histories against today's workflow code: a change that breaks determinism fails here.
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker, DefaultLogger, Runtime } from '@temporalio/worker';
import fs from 'node:fs';
import path from 'node:path';

const history = (file: string): unknown => JSON.parse(fs.readFileSync(path.join(__dirname, 'histories', file), 'utf8'));

describe('agentRun replay', () => {
  jest.setTimeout(120_000);
  beforeAll(() => {
    try {
      Runtime.install({ logger: new DefaultLogger('ERROR') });
    } catch {
      // installed by another test file in this process
    }
  });

  it('replays a recorded run with parallel tool calls without a determinism error', async () => {
    const recorded = history('agent-run-parallel-tools.json') as { events: { eventType: string; activityTaskScheduledEventAttributes?: { activityType?: { name?: string } } }[] };
    const scheduled = recorded.events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool');
    expect(scheduled).toHaveLength(4);
    await expect(Worker.runReplayHistory({ workflowsPath: require.resolve('../../workflows') }, recorded, 'replay-agent-run-parallel-tools')).resolves.toBeUndefined();
  });

  it('fails replay when the workflow code changes the commands it issues', async () => {
    const replay = Worker.runReplayHistory({ workflowsPath: require.resolve('../fixtures/changed-workflows') }, history('agent-run-parallel-tools.json'), 'replay-agent-run-parallel-tools');
    await expect(replay).rejects.toThrow(DeterminismViolationError);
  });
});
