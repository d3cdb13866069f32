// Agents used as tools (docs/ARCHITECTURE.md, "Nested runs") on a real dev server: each call is a child workflow
// `${parent}/tool/${stepIndex}-${callId}` whose events reach the root's one stream, tagged with depth and parent;
// nested completions never end that stream; the parent sees only the child's final answer; usage rolls up (a child's
// workspace: agent-tool-workspace.test.ts).
import { asTool, defineAgent, type AgioEvent, type AgioEventOf } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { offeredTools, sentMessages, sentToolResult, sentToolResults } from '../helpers/agent-runs';
import {
  childStarts,
  eventsOf,
  expectWholeStream,
  requestsOf,
  runAndStream,
  waitForEvent,
} from '../helpers/nested-runs';
import { uniqueId } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';

/** The nesting tags every event of one run carries. */
function tagsOf(events: AgioEvent[]): object[] {
  return [
    ...new Set(
      events.map((e) =>
        JSON.stringify([e.depth, e.parentRunId ?? null, e.toolCallId ?? null, e.nestingType ?? null, e.rootRunId]),
      ),
    ),
  ].map((s) => JSON.parse(s) as object);
}

const index = (events: AgioEvent[], match: (e: AgioEvent) => boolean): number => events.findIndex(match);
/** A stream that lasts longer than the first delta's hold (FIRST_DELTA_HOLD_MS), so its deltas are sent. */
const STREAMED = { chunkSize: 3, delayMs: 10 };

describe('agents used as tools', () => {
  const bed = useTestBed({ tools: testTools });

  const run = (agent: ReturnType<typeof defineAgent>, input: string, workflowId?: string) =>
    runAndStream(bed.client, bed.worker.taskQueue, { agent, input }, workflowId);

  it("does not close the parent's stream when a nested agent completes", async () => {
    const helper = defineAgent({ name: 'helper', instructions: 'You are the helper.' });
    const parent = defineAgent({
      name: 'parent',
      instructions: 'You are the parent.',
      tools: [asTool(helper, { description: 'Helps with anything.', stream: 'full' })],
    });
    bed.server.scriptFor(
      'You are the parent.',
      toolCalls([toolCall('helper', { task: 'help me' }, { id: 'call_help' })]),
      text('the parent is done', STREAMED),
    );
    bed.server.scriptFor('You are the helper.', text('the helper answer', STREAMED));

    const { rootRunId, events, output } = await run(parent, 'start');

    expect(output.response).toBe('the parent is done');
    expectWholeStream(events, rootRunId);
    const childRunId = `${rootRunId}/tool/3-call_help`;
    const child = eventsOf(events, childRunId);
    expect(child[0].type).toBe('RUN_STARTED');
    expect(child[child.length - 1]).toMatchObject({ type: 'RUN_COMPLETED', data: { response: 'the helper answer' } });
    expect(child.some((e) => e.type === 'STEP_DELTA')).toBe(true);
    expect(tagsOf(child)).toEqual([[1, rootRunId, 'call_help', 'agent_tool', rootRunId]]);
    expect(tagsOf(eventsOf(events, rootRunId))).toEqual([[0, null, null, null, rootRunId]]);
    // After the child's RUN_COMPLETED the root goes on streaming: its tool step, its answer's deltas, its answer.
    const after = events.slice(index(events, (e) => e.runId === childRunId && e.type === 'RUN_COMPLETED') + 1);
    expect(after.every((e) => e.runId === rootRunId)).toBe(true);
    expect(after.map((e) => e.type).filter((t, i, all) => t !== all[i - 1])).toEqual([
      'STEP_COMPLETED',
      'STEP_DELTA',
      'STEP_COMPLETED',
      'RUN_COMPLETED',
    ]);
    expect(after[0].snapshot).toMatchObject({ role: 'tool', toolCallId: 'call_help', content: 'the helper answer' });
    expect(
      after
        .filter((e) => e.type === 'STEP_DELTA')
        .map((e) => e.delta?.content)
        .join(''),
    ).toBe('the parent is done');
  });

  it('streams several nested calls made in sequence, each to completion, and finishes the parent last', async () => {
    const helper = defineAgent({ name: 'helper', instructions: 'You are the helper.' });
    const parent = defineAgent({
      name: 'parent',
      instructions: 'You are the parent.',
      tools: [asTool(helper, { description: 'Helps.', stream: 'full' })],
    });
    bed.server.scriptFor(
      'You are the parent.',
      ...[1, 2, 3].map((i) => toolCalls([toolCall('helper', { task: `part ${i}` }, { id: `call_${i}` })])),
      text('all three parts done'),
    );
    bed.server.scriptFor(
      'You are the helper.',
      text('part 1 done', STREAMED),
      text('part 2 done', STREAMED),
      text('part 3 done', STREAMED),
    );

    const { rootRunId, events, output } = await run(parent, 'do it in three parts');

    expect(output.response).toBe('all three parts done');
    expectWholeStream(events, rootRunId);
    const childIds = [1, 2, 3].map((i) => `${rootRunId}/tool/${2 * i + 1}-call_${i}`);
    const lifecycle = events
      .filter((e) => e.depth === 1 && (e.type === 'RUN_STARTED' || e.type === 'RUN_COMPLETED'))
      .map((e) => [e.type, e.runId]);
    expect(lifecycle).toEqual(
      childIds.flatMap((id) => [
        ['RUN_STARTED', id],
        ['RUN_COMPLETED', id],
      ]),
    );
    for (const id of childIds) expect(eventsOf(events, id).some((e) => e.type === 'STEP_DELTA')).toBe(true);
    expect(childStarts(await bed.client.workflow.getHandle(rootRunId).fetchHistory()).map((s) => s.workflowId)).toEqual(
      childIds,
    );
    for (const id of childIds)
      expect((await bed.client.workflow.getHandle(id).describe()).status.name).toBe('COMPLETED');
    const lastParentRequest = requestsOf(bed.server, 'You are the parent.')[3];
    expect(sentToolResults(lastParentRequest)).toEqual(
      [1, 2, 3].map((i) => ({ id: `call_${i}`, content: `part ${i} done` })),
    );
  });

  it('nests three levels deep with depth 0, 1, 2, each parentRunId the caller and child ids `${parent}/tool/${stepIndex}-${callId}`', async () => {
    const checker = defineAgent({ name: 'checker', instructions: 'You are the fact checker.' });
    const researcher = defineAgent({
      name: 'researcher',
      instructions: 'You are the researcher.',
      tools: [asTool(checker, { description: 'Checks facts.' })],
    });
    const planner = defineAgent({
      name: 'planner',
      instructions: 'You are the planner.',
      tools: [asTool(researcher, { description: 'Researches.' })],
    });
    bed.server.scriptFor(
      'You are the planner.',
      toolCalls([toolCall('researcher', { task: 'research it' }, { id: 'call_a' })]),
      text('plan ready'),
    );
    bed.server.scriptFor(
      'You are the researcher.',
      toolCalls([toolCall('checker', { task: 'check it' }, { id: 'call_b' })]),
      text('research done'),
    );
    bed.server.scriptFor('You are the fact checker.', text('facts check out'));

    const { rootRunId: a, events, output } = await run(planner, 'plan');

    expect(output.response).toBe('plan ready');
    expectWholeStream(events, a);
    const b = `${a}/tool/3-call_a`;
    const c = `${b}/tool/3-call_b`;
    expect(tagsOf(eventsOf(events, a))).toEqual([[0, null, null, null, a]]);
    expect(tagsOf(eventsOf(events, b))).toEqual([[1, a, 'call_a', 'agent_tool', a]]);
    expect(tagsOf(eventsOf(events, c))).toEqual([[2, b, 'call_b', 'agent_tool', a]]);
    expect([...new Set(events.map((e) => e.runId))].sort()).toEqual([a, b, c].sort());
    expect(new Set(eventsOf(events, c).map((e) => e.agent))).toEqual(new Set(['checker']));
    // Each level starts the next as its own child workflow, and the ends come innermost first.
    expect(childStarts(await bed.client.workflow.getHandle(a).fetchHistory()).map((s) => s.workflowId)).toEqual([b]);
    expect(childStarts(await bed.client.workflow.getHandle(b).fetchHistory()).map((s) => s.workflowId)).toEqual([c]);
    expect(childStarts(await bed.client.workflow.getHandle(c).fetchHistory())).toEqual([]);
    const ends = events.filter((e) => e.type === 'RUN_COMPLETED').map((e) => e.runId);
    expect(ends).toEqual([c, b, a]);
    expect(sentToolResult(requestsOf(bed.server, 'You are the researcher.')[1], 'call_b')).toBe('facts check out');
    expect(sentToolResult(requestsOf(bed.server, 'You are the planner.')[1], 'call_a')).toBe('research done');
  });

  it('runs two agent calls of one turn as concurrent child workflows whose events interleave, returning results in call order', async () => {
    const alpha = defineAgent({ name: 'alpha', instructions: 'You are alpha.', tools: ['echo'] });
    const beta = defineAgent({ name: 'beta', instructions: 'You are beta.' });
    const coordinator = defineAgent({
      name: 'coordinator',
      instructions: 'You are the coordinator.',
      tools: [asTool(alpha, { description: 'Alpha.' }), asTool(beta, { description: 'Beta.' })],
    });
    const rootRunId = uniqueId('parallel');
    const alphaRunId = `${rootRunId}/tool/3-call_alpha`;
    const betaRunId = `${rootRunId}/tool/4-call_beta`;
    bed.server.scriptFor(
      'You are the coordinator.',
      toolCalls([
        toolCall('alpha', { task: 'first half' }, { id: 'call_alpha' }),
        toolCall('beta', { task: 'second half' }, { id: 'call_beta' }),
      ]),
      text('both halves in'),
    );
    // The children hold each other up through the root's own stream, so they provably overlap: beta streams only
    // once alpha's first step is visible, and alpha streams its answer only after beta has completed.
    bed.server.scriptFor(
      'You are alpha.',
      toolCalls([toolCall('echo', { text: 'alpha is working' }, { id: 'call_alpha_echo' })], {
        chunkSize: 3,
        delayMs: 10,
      }),
      async () => {
        await waitForEvent(bed.client, rootRunId, (e) => e.runId === betaRunId && e.type === 'RUN_COMPLETED');
        return text('alpha result', { chunkSize: 3, delayMs: 20 });
      },
    );
    bed.server.scriptFor('You are beta.', async () => {
      await waitForEvent(bed.client, rootRunId, (e) => e.runId === alphaRunId && e.type === 'STEP_DELTA');
      return text('beta result', { chunkSize: 3, delayMs: 20 });
    });

    const { events, output } = await run(coordinator, 'split the work', rootRunId);

    expect(output.response).toBe('both halves in');
    expectWholeStream(events, rootRunId);
    // One workflow task started both children.
    const starts = childStarts(await bed.client.workflow.getHandle(rootRunId).fetchHistory());
    expect(starts.map((s) => s.workflowId)).toEqual([alphaRunId, betaRunId]);
    expect(starts[0].workflowTaskCompletedEventId).toBe(starts[1].workflowTaskCompletedEventId);
    // Beta's whole run lies inside alpha's, deltas included. Each child keeps its own log, and a reader interleaves
    // logs as it reads them, so the order across runs is their events' times; within a run it is the stream's own.
    const at = (runId: string, type: string, last = false) => {
      const found = events.map((e, i) => (e.runId === runId && e.type === type ? i : -1)).filter((i) => i >= 0);
      return last ? found[found.length - 1] : found[0];
    };
    const timeOf = (runId: string, type: string, last = false) => events[at(runId, type, last)].timestamp;
    expect(at(alphaRunId, 'RUN_STARTED')).toBeLessThan(at(alphaRunId, 'STEP_DELTA'));
    expect(timeOf(alphaRunId, 'STEP_DELTA')).toBeLessThanOrEqual(timeOf(betaRunId, 'STEP_DELTA'));
    expect(timeOf(betaRunId, 'RUN_COMPLETED')).toBeLessThanOrEqual(timeOf(alphaRunId, 'STEP_DELTA', true));
    expect(at(alphaRunId, 'STEP_DELTA', true)).toBeLessThan(at(alphaRunId, 'RUN_COMPLETED'));
    // Beta finished first, yet the coordinator sees the results in the order it asked for them.
    expect(sentToolResults(requestsOf(bed.server, 'You are the coordinator.')[1])).toEqual([
      { id: 'call_alpha', content: 'alpha result' },
      { id: 'call_beta', content: 'beta result' },
    ]);
    expect(output.steps.filter((s) => s.role === 'tool').map((s) => s.toolCallId)).toEqual(['call_alpha', 'call_beta']);
  });

  it("hands the parent only the child's final answer and the child only its delegation message and allowlisted tools", async () => {
    const reader = defineAgent({ name: 'reader', instructions: 'You are the reader.', tools: ['echo', 'record'] });
    const parent = defineAgent({
      name: 'parent',
      instructions: 'You are the parent. PARENT-SYSTEM-PROMPT',
      tools: ['record', asTool(reader, { description: 'Reads documents.', toolsAllowlist: ['echo'] })],
    });
    const args = {
      task: 'Summarise report.txt',
      context: 'The user wants three bullet points.',
      references: ['report.txt', 'https://example.com/spec'],
    };
    bed.server.scriptFor(
      'You are the parent.',
      toolCalls([toolCall('reader', args, { id: 'call_reader' })]),
      text('Here is the summary.'),
    );
    bed.server.scriptFor(
      'You are the reader.',
      toolCalls([toolCall('echo', { text: 'CHILD-TOOL-RESULT' }, { id: 'call_echo' })], {
        content: 'CHILD-PLANNING-TEXT',
      }),
      text('three bullets'),
    );

    const { output } = await run(parent, 'Please summarise the report.');

    expect(output.response).toBe('Here is the summary.');
    const [first, second] = requestsOf(bed.server, 'You are the parent.');
    expect(sentMessages(second).map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(sentToolResult(second, 'call_reader')).toBe('three bullets');
    for (const request of [first, second]) {
      const sent = JSON.stringify(request.body);
      for (const intermediate of ['CHILD-TOOL-RESULT', 'CHILD-PLANNING-TEXT', 'call_echo'])
        expect(sent).not.toContain(intermediate);
    }
    const [childFirst, childSecond] = requestsOf(bed.server, 'You are the reader.');
    const delegated = sentMessages(childFirst);
    expect(delegated.map((m) => m.role)).toEqual(['system', 'user']);
    expect(delegated[0].content).toBe('You are the reader.');
    expect(delegated[1].content).toContain('Task: Summarise report.txt');
    expect(delegated[1].content).toContain('Context: The user wants three bullet points.');
    expect(delegated[1].content).toContain('References:\n- report.txt\n- https://example.com/spec');
    expect(JSON.stringify(childFirst.body)).not.toContain('PARENT-SYSTEM-PROMPT');
    expect(offeredTools(childFirst)).toEqual(['echo']);
    // The child's own conversation does carry its intermediate steps.
    expect(sentToolResult(childSecond, 'call_echo')).toBe('CHILD-TOOL-RESULT');
  });

  it("publishes only a stream: 'none' child's RUN_STARTED and RUN_COMPLETED", async () => {
    const quiet = defineAgent({ name: 'quiet', instructions: 'You are the quiet one.', tools: ['echo'] });
    const parent = defineAgent({
      name: 'parent',
      instructions: 'You are the parent.',
      tools: [asTool(quiet, { description: 'Works quietly.', stream: 'none' })],
    });
    bed.server.scriptFor(
      'You are the parent.',
      toolCalls([toolCall('quiet', { task: 'work quietly' }, { id: 'call_quiet' })]),
      text('heard nothing, got the answer'),
    );
    bed.server.scriptFor(
      'You are the quiet one.',
      toolCalls([toolCall('echo', { text: 'shh' })], { chunkSize: 2 }),
      text('the quiet answer', { chunkSize: 2 }),
    );

    const { rootRunId, events, output } = await run(parent, 'go');

    expect(output.response).toBe('heard nothing, got the answer');
    expectWholeStream(events, rootRunId);
    const nested = events.filter((e) => e.depth > 0);
    expect(nested.map((e) => [e.type, e.runId])).toEqual([
      ['RUN_STARTED', `${rootRunId}/tool/3-call_quiet`],
      ['RUN_COMPLETED', `${rootRunId}/tool/3-call_quiet`],
    ]);
    expect(nested[1].data).toMatchObject({ response: 'the quiet answer' });
    expect(requestsOf(bed.server, 'You are the quiet one.')).toHaveLength(2);
  });

  it("rolls every nested run's usage into the root's, and puts each run's usage on its terminal event", async () => {
    const usage = (prompt_tokens: number, completion_tokens: number) => ({
      usage: { prompt_tokens, completion_tokens },
    });
    const c = defineAgent({ name: 'leaf', instructions: 'You are the leaf.' });
    const b = defineAgent({
      name: 'middle',
      instructions: 'You are the middle.',
      tools: [asTool(c, { description: 'Leaf.' })],
    });
    const a = defineAgent({
      name: 'top',
      instructions: 'You are the top.',
      tools: [asTool(b, { description: 'Middle.' })],
    });
    bed.server.scriptFor(
      'You are the top.',
      toolCalls([toolCall('middle', { task: 'm' }, { id: 'call_m' })], usage(100, 10)),
      text('top answer', usage(200, 20)),
    );
    bed.server.scriptFor(
      'You are the middle.',
      toolCalls([toolCall('leaf', { task: 'l' }, { id: 'call_l' })], usage(20, 2)),
      text('middle answer', usage(30, 3)),
    );
    bed.server.scriptFor('You are the leaf.', text('leaf answer', usage(3, 1)));

    const { rootRunId, events, output } = await run(a, 'go');

    const total = (promptTokens: number, completionTokens: number) => ({
      promptTokens,
      completionTokens,
      totalTokens: promptTokens + completionTokens,
      costUnknown: true, // the scripted model has no price
    });
    // top: 100 + 200 own; middle: 20 + 30 own; leaf: 3 own.
    expect(output.usage).toEqual(total(353, 36));
    const completed = (runId: string) =>
      events.find((e): e is AgioEventOf<'RUN_COMPLETED'> => e.runId === runId && e.type === 'RUN_COMPLETED')!;
    const middle = `${rootRunId}/tool/3-call_m`;
    const leaf = `${middle}/tool/3-call_l`;
    expect(completed(leaf).usage).toEqual(total(3, 1));
    expect(completed(leaf).data?.ownUsage).toEqual(total(3, 1));
    expect(completed(middle).usage).toEqual(total(53, 6));
    expect(completed(middle).data?.ownUsage).toEqual(total(50, 5));
    expect(completed(rootRunId).usage).toEqual(total(353, 36));
    expect(completed(rootRunId).data?.ownUsage).toEqual(total(300, 30));
    // The tool step of a nested call carries the usage of the child's whole subtree.
    expect(output.steps.find((s) => s.toolCallId === 'call_m')?.usage).toEqual(total(53, 6));
  });
});
