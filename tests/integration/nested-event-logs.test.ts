// Nested runs keep their own event logs (NESTED_EVENT_LOGS_PATCH): a child's events are in its own Wire and event log,
// with its own offsets, and its parent's log holds only copies of its start and end. The root's history therefore
// grows with its children, not with their steps.
import type { Client } from '@temporalio/client';
import { asTool, defineAgent, isTerminalType, parallelAgent, type EventsPage, type WireEvent } from '../../common';
import { eventsQuery } from '../../common/messages';
import { text, toolCall, toolCalls, type ScriptedTurn } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { runToEnd } from '../helpers/agent-runs';
import { useTestBed } from '../helpers/test-bed';
import { uniqueId } from '../helpers/temporal';
import { historyLength } from '../helpers/workflow-agents';

/** `turns` tool turns of one small tool output each, then `answer`. */
function toolTurns(turns: number, answer: string): ScriptedTurn[] {
  return [...Array.from({ length: turns }, () => toolCalls([toolCall('big_output', { bytes: 200 })])), text(answer)];
}

/** The whole Wire of a run (its events Query), page by page. */
async function wireOf(client: Client, workflowId: string): Promise<WireEvent[]> {
  const events: WireEvent[] = [];
  for (let after = -1; ;) {
    const page: EventsPage = await client.workflow.getHandle(workflowId).query(eventsQuery, { after });
    events.push(...page.events);
    if (!page.events.length || page.events[page.events.length - 1].offset >= page.lastOffset) return events;
    after = page.events[page.events.length - 1].offset;
  }
}

/** A child's own log: its events only, offsets 0..n-1, every one marked ownLog, ending with its terminal event. */
function expectOwnLog(events: WireEvent[], runId: string): void {
  expect(events.length).toBeGreaterThan(3);
  expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i));
  expect(events.every((e) => e.runId === runId && e.ownLog === true)).toBe(true);
  expect(events[0].type).toBe('RUN_STARTED');
  expect(events.filter((e) => isTerminalType(e.type))).toEqual([events[events.length - 1]]);
}

describe('nested event logs', () => {
  const bed = useTestBed({ tools: testTools });

  /**
   * Runs a parent whose helper takes `turns` tool turns; returns the root's id, its history length and the child's id.
   */
  async function parentWithBusyHelper(turns: number) {
    const key = uniqueId('busy');
    const helper = defineAgent({
      name: 'helper',
      instructions: `You are helper ${key}.`,
      tools: ['big_output'],
      maxSteps: 40,
    });
    const parent = defineAgent({
      name: 'parent',
      instructions: `You are parent ${key}.`,
      tools: [asTool(helper, { description: 'Works.' })],
    });
    bed.server.scriptFor(
      `You are parent ${key}.`,
      toolCalls([toolCall('helper', { task: 'work' }, { id: 'call_1' })]),
      text('parent done'),
    );
    bed.server.scriptFor(`You are helper ${key}.`, ...toolTurns(turns, 'helper done'));
    const { output, handle } = await runToEnd(bed.client, bed.worker.taskQueue, { agent: parent, input: 'go' });
    expect(output.response).toBe('parent done');
    const root = await wireOf(bed.client, handle.workflowId);
    const childId = root.find((e) => e.runId !== handle.workflowId)!.runId;
    return { rootRunId: handle.workflowId, root, childId, length: await historyLength(bed.client, handle.workflowId) };
  }

  it("keeps an agent tool's events in its own log; its parent's log has only its start and end", async () => {
    const { rootRunId, root, childId } = await parentWithBusyHelper(4);
    // The parent's log: its own events, and two copies of the child's (start and end) that point at the child's log.
    const copies = root.filter((e) => e.runId !== rootRunId);
    expect(copies.map((e) => [e.runId, e.type, e.ownLog])).toEqual([
      [childId, 'RUN_STARTED', true],
      [childId, 'RUN_COMPLETED', true],
    ]);
    expect(root.map((e) => e.offset)).toEqual(root.map((_, i) => i));
    const child = await wireOf(bed.client, childId);
    expectOwnLog(child, childId);
    expect(child.filter((e) => e.type === 'STEP_COMPLETED').length).toBeGreaterThanOrEqual(9);
    // The child's log is in the stores too, under its own id, whole.
    const stored = await bed.worker.stores.events.read('default', childId, -1, 1000);
    expect(stored.map(({ timestamp: _t, ...e }) => e)).toEqual(child.map(({ timestamp: _t, ...e }) => e));
  });

  it("does not grow the root's history with its children's steps", async () => {
    const few = await parentWithBusyHelper(2);
    const many = await parentWithBusyHelper(12);
    console.log(`root history: ${few.length} events with a 2-turn child, ${many.length} with a 12-turn child`);
    expect(many.length).toBe(few.length);
  });

  it("keeps each parallel branch's events in the branch's own log", async () => {
    const key = uniqueId('branches');
    const branches = ['a', 'b', 'c'].map((n) =>
      defineAgent({ name: `branch_${n}`, instructions: `You are branch ${n} ${key}.`, tools: ['big_output'] }),
    );
    for (const n of ['a', 'b', 'c']) bed.server.scriptFor(`You are branch ${n} ${key}.`, ...toolTurns(3, `${n} done`));
    const root = parallelAgent({ name: 'fan', subAgents: branches });
    const run = await bed.agio.start(root, 'go');
    await run.result();
    const log = await wireOf(bed.client, run.runId);
    const children = [...new Set(log.filter((e) => e.runId !== run.runId).map((e) => e.runId))];
    expect(children).toHaveLength(3);
    expect(log.filter((e) => e.runId !== run.runId)).toHaveLength(6);
    for (const id of children) expectOwnLog(await wireOf(bed.client, id), id);
  });
});
