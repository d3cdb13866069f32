// The pre-deploy replay check on a real dev server: an open run waiting for an approval and a completed run replay
// against today's workflows (exit 0), fail against a deliberately changed agentRun with the run and the first
// differing event named (exit 1), and bad usage or a bad query exit 2 with a message.
import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime, type History } from '@temporalio/worker';
import { replayCheckCommand } from '../../cli/replay-check';
import type { RunHandle } from '../../client/agio-client';
import { defineAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { replayCheck } from '../../worker/replay-check';
import { testTools } from '../fixtures/test-tools';
import { num } from '../helpers/agent-runs';
import { askingAgent, keyOf, waitForAsk } from '../helpers/approvals';
import { useTestBed } from '../helpers/test-bed';
import { testEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/workflow-agents';

const CHANGED_WORKFLOWS = require.resolve('../fixtures/changed-workflows');

// Core warns of every failing workflow task, and this file fails many on purpose (the check prints them itself).
try {
  Runtime.install({ logger: new DefaultLogger('WARN'), telemetryOptions: { logging: { filter: { core: 'ERROR' } } } });
} catch {
  // installed by an earlier test file in this process
}

/** Runs the CLI function against the test server; returns its exit code and what it printed. */
async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const env = { TEMPORAL_ADDRESS: testEnv('temporalAddress') };
  const code = await replayCheckCommand(argv, { env, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Resolves once visibility lists one open and one completed run for `query` (it is eventually consistent). */
async function untilListed(client: Client, query: string): Promise<void> {
  const count = async (status: string) => {
    return (await client.workflow.count(`${query} AND ExecutionStatus = '${status}'`)).count;
  };
  await waitFor(
    `the runs to show up in visibility for ${query}`,
    async () => (await count('Running')) === 1 && (await count('Completed')) === 1,
    20_000,
  );
}

/** The event after the first WorkflowTaskCompleted: the changed agentRun already differs in that task's commands. */
function firstCommandEvent(history: History): { event: { eventId: number; eventType: string }; completedAt: number } {
  const events = history.events ?? [];
  const completed = events.findIndex((e) => e.workflowTaskCompletedEventAttributes);
  const next = events[completed + 1];
  const field = Object.keys(next).find((k) => k.endsWith('EventAttributes')) ?? '';
  const eventType = field[0].toUpperCase() + field.slice(1).replace(/EventAttributes$/, '');
  return { event: { eventId: num(next.eventId), eventType }, completedAt: num(events[completed].eventId) };
}

describe('replay-check', () => {
  jest.setTimeout(90_000);
  let waiting: RunHandle;
  let done: RunHandle;
  let query: string;
  // Declared before the test bed, so it runs before the bed closes the client: the open run must not outlive the file.
  afterAll(async () => {
    await waiting?.workflow.terminate('replay-check test done');
  });
  const bed = useTestBed({ tools: testTools });

  beforeAll(async () => {
    // The dev server is shared with other test files: check only this file's runs.
    query = `TaskQueue = '${bed.worker.taskQueue}'`;
    const finisher = defineAgent({ name: 'replay-finisher', instructions: 'You are replay-finisher.' });
    const asker = askingAgent('replay-asker');
    bed.server.scriptFor('You are replay-finisher.', text('finished'));
    bed.server.scriptFor(keyOf(asker), toolCalls([toolCall('record', { label: 'later' }, { id: 'call_wait' })]));
    done = await bed.agio.start(finisher, 'finish');
    waiting = await bed.agio.start(asker, 'record something');
    await Promise.all([done.result(), waitForAsk(bed.client, waiting.runId, 'call_wait')]);
    await untilListed(bed.client, query);
  });

  it('replays an open run waiting for an approval and a completed run on today’s workflows: exit 0', async () => {
    const report = await replayCheck({ client: bed.client, query });

    expect(report.failed).toBe(0);
    expect(report.code.buildId).toMatch(/^wf-[0-9a-f]{12}$/);
    const version = expect.objectContaining({ deploymentName: bed.worker.taskQueue, behavior: 'pinned' });
    const ok = { workflowType: 'agentRun', outcome: 'ok' };
    expect(report.runs).toEqual([
      expect.objectContaining({ ...ok, runId: waiting.runId, status: 'running', version }),
      expect.objectContaining({ ...ok, runId: done.runId, status: 'completed' }),
    ]);

    const { code, out } = await cli(['--query', query, '--bundle', testEnv('workflowBundle')]);
    expect(code).toBe(0);
    expect(out).toMatch(new RegExp(`^ok +${waiting.runId}  agentRun  running  on ${bed.worker.taskQueue}\\.wf-`, 'm'));
    expect(out).toMatch(new RegExp(`^ok +${done.runId}  agentRun  completed`, 'm'));
    expect(out.split('\n').at(-1)).toBe('replay-check: 2 runs replayed, 0 failed');
  });

  it('fails both runs on a changed agentRun, naming each run and its first differing event; exit 1', async () => {
    const report = await replayCheck({ client: bed.client, query, workflows: { workflowsPath: CHANGED_WORKFLOWS } });

    expect(report.failed).toBe(2);
    for (const run of [waiting, done]) {
      const first = firstCommandEvent(await run.workflow.fetchHistory());
      const temporalRunId = (await run.workflow.describe()).runId;
      expect(report.runs.find((r) => r.runId === run.runId)).toMatchObject({
        outcome: 'nondeterminism',
        temporalRunId,
        message: expect.stringContaining('Nondeterminism error'),
        divergence: { ...first.event, workflowTaskCompletedEventId: first.completedAt },
      });
    }

    const { code, out } = await cli(['--query', query, '--closed', '5', '--workflows', CHANGED_WORKFLOWS]);
    expect(code).toBe(1);
    for (const { runId, temporalRunId, divergence } of report.runs) {
      expect(out).toMatch(new RegExp(`^NONDETERMINISM +${runId}  agentRun`, 'm'));
      const differs = `first differing event ${divergence?.eventId} ${divergence?.eventType}`;
      expect(out).toContain(`${runId} (Temporal run ${temporalRunId}) would not replay: ${differs}`);
    }
    expect(out).toContain('DeterminismViolationError: Replay failed with a nondeterminism error');
    expect(out.split('\n').at(-1)).toBe('replay-check: 2 runs replayed, 2 failed');
  });

  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['--bundle', '/nonexistent/workflow-bundle.js'], '--bundle: no such file /nonexistent/workflow-bundle.js'],
    [['--workflows', 'no/such/workflows'], '--workflows: no module at no/such/workflows'],
    [['--closed', 'many'], '--closed takes a whole number, not "many"'],
    [['stray'], "Unexpected argument 'stray'"],
  ])('exits 2 with a clear message on bad usage: %j', async (argv, message) => {
    const { code, out, err } = await cli(argv);
    expect(code).toBe(2);
    expect(err).toContain(`replay-check: ${message}`);
    expect(err).toContain('usage: agio replay-check');
    expect(out).toBe('');
  });

  it('exits 2 when Temporal rejects the query', async () => {
    const { code, err } = await cli(['--query', 'NoSuchAttribute = 1', '--bundle', testEnv('workflowBundle')]);
    expect(code).toBe(2);
    expect(err).toMatch(/^replay-check: .*NoSuchAttribute/);
  });
});
