// Replays recorded histories of every workflow type (agentRun, loop, sequential and parallel agents) against
// today's workflow code: a change that breaks determinism fails here. `npm run record-histories` records them.
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker, DefaultLogger, Runtime } from '@temporalio/worker';
import fs from 'node:fs';
import path from 'node:path';

interface RecordedHistory {
  events: {
    markerRecordedEventAttributes?: { markerName?: string; details?: Record<string, { payloads?: { data?: unknown }[] }> };
    workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } };
    activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
    startChildWorkflowExecutionInitiatedEventAttributes?: { workflowId?: string };
  }[];
}

const history = (file: string): RecordedHistory => JSON.parse(fs.readFileSync(path.join(__dirname, 'histories', file), 'utf8'));
const workflowType = (h: RecordedHistory) => h.events[0].workflowExecutionStartedEventAttributes?.workflowType?.name;
const childIds = (h: RecordedHistory) => h.events.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? []);
/** The patches a history recorded, in order. */
const patchIds = (h: RecordedHistory): string[] =>
  h.events.flatMap((e) => {
    const attrs = e.markerRecordedEventAttributes;
    if (attrs?.markerName !== 'core_patch') return [];
    const data = attrs.details?.['patch-data']?.payloads?.[0]?.data;
    return [(JSON.parse(Buffer.from(data as string, 'base64').toString('utf8')) as { id: string }).id];
  });
/** The types of the local activities a history recorded, in order. */
const localActivityTypes = (h: RecordedHistory): string[] =>
  h.events.flatMap((e) => {
    const data = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
    return data ? [(JSON.parse(Buffer.from(data as unknown as string, 'base64').toString('utf8')) as { activity_type: string }).activity_type] : [];
  });
const replay = (file: string, workflowId: string) => Worker.runReplayHistory({ workflowsPath: require.resolve('../../workflows') }, history(file), workflowId);

describe('workflow replay', () => {
  jest.setTimeout(120_000);
  beforeAll(() => {
    try {
      Runtime.install({ logger: new DefaultLogger('ERROR') });
    } catch {
      // installed by another test file in this process
    }
  });

  it('replays a recorded run with parallel tool calls without a determinism error', async () => {
    const recorded = history('agent-run-parallel-tools.json');
    const scheduled = recorded.events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool');
    expect(scheduled).toHaveLength(4);
    await expect(replay('agent-run-parallel-tools.json', 'replay-agent-run-parallel-tools')).resolves.toBeUndefined();
  });

  it('replays a run with quick tools as local activities and its event log tail written after the terminal event', async () => {
    const recorded = history('agent-run-event-log.json');
    const markers = recorded.events.flatMap((e) => e.markerRecordedEventAttributes?.markerName ?? []);
    const activities = recorded.events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(markers[0]).toBe('core_patch');
    expect(markers.filter((m) => m === 'core_local_activity').length).toBeGreaterThanOrEqual(4);
    expect(activities).toEqual(['resolveTools', 'callModel', 'runTool', 'callModel', 'callModel', 'logEvents']);
    await expect(replay('agent-run-event-log.json', 'replay-agent-run-event-log')).resolves.toBeUndefined();
  });

  it('replays a run on the lean step path: tools resolved locally, turns riding on model calls, one local write at its end', async () => {
    const localTypes = localActivityTypes(history('agent-run-lean-steps.json'));
    expect(localTypes).toEqual(['recordRun', 'resolveTools', 'runTool', 'runTool', 'persistSteps', 'recordRun']);
    await expect(replay('agent-run-lean-steps.json', 'replay-agent-run-lean-steps')).resolves.toBeUndefined();
  });

  it.each([
    ['agent-run-agent-tool.json', 'replay-agent-run-agent-tool', 'agentRun', ['tool/call_helper']],
    ['agent-run-agent-tool-lean-steps.json', 'replay-agent-run-agent-tool-lean-steps', 'agentRun', ['tool/call_helper']],
    ['loop-agent.json', 'replay-loop-agent', 'loopAgentRun', ['loop-0/0-drafter', 'loop-0/1-critic', 'loop-1/0-drafter', 'loop-1/1-critic']],
    // The last run of a loop that continued as new after each iteration, writing its event log as a root.
    ['loop-agent-event-log.json', 'replay-loop-agent-event-log', 'loopAgentRun', ['loop-1/0-drafter', 'loop-1/1-critic']],
    ['sequential-agent.json', 'replay-sequential-agent', 'sequentialAgentRun', ['seq/0-researcher', 'seq/1-writer']],
    ['parallel-agent.json', 'replay-parallel-agent', 'parallelAgentRun', ['branch/0-north', 'branch/1-south']],
  ])('replays %s (workflow %s, type %s, with its child workflows) without a determinism error', async (file, workflowId, type, children) => {
    const recorded = history(file);
    expect(workflowType(recorded)).toBe(type);
    expect(childIds(recorded)).toEqual(children.map((c) => `${workflowId}/${c}`));
    await expect(replay(file, workflowId)).resolves.toBeUndefined();
  });

  it.each([
    // Compaction: a local write of the compacted contents, then CONTEXT_COMPACTED, before the next model call.
    ['agent-run-compaction.json', 'replay-agent-run-compaction', 'agio-compaction', []],
    // A model call retried through an outage within the run's retry window.
    ['agent-run-outage.json', 'replay-agent-run-outage', 'agio-model-retry-window', []],
    // Agent tools whose deadlines the parent keeps: one in time, one cancelled by the parent's timer.
    ['agent-run-agent-tool-deadline.json', 'replay-agent-run-agent-tool-deadline', 'agio-agent-tool-deadline', ['tool/call_quick', 'tool/call_slow']],
  ])('replays %s (workflow %s), recorded under its patch %s, without a determinism error', async (file, workflowId, patch, children) => {
    const recorded = history(file);
    expect(patchIds(recorded)).toContain(patch);
    if (patch === 'agio-compaction') expect(localActivityTypes(recorded)).toContain('storeCompacted');
    expect(childIds(recorded)).toEqual(children.map((c) => `${workflowId}/${c}`));
    await expect(replay(file, workflowId)).resolves.toBeUndefined();
  });

  it('fails replay when the workflow code changes the commands it issues', async () => {
    const replay = Worker.runReplayHistory({ workflowsPath: require.resolve('../fixtures/changed-workflows') }, history('agent-run-parallel-tools.json'), 'replay-agent-run-parallel-tools');
    await expect(replay).rejects.toThrow(DeterminismViolationError);
  });
});
