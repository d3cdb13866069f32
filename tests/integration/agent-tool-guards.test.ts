// What keeps nested agents bounded, on a real dev server: a call deeper than the depth limit and a call that
// would form a cycle become tool error results and every run completes; a sub-agent that fails its
// healthcheck when the worker starts is logged and never offered to the model.
import { asTool, defineAgent, type AgentSpec, type RunOutput } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { offeredTools, runToEnd, sentToolResult } from '../helpers/agent-runs';
import { childStarts, readStream, requestsOf } from '../helpers/nested-runs';
import { startTestWorker, type TestWorker } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';

describe('nested agent guards', () => {
  const bed = useTestBed({ tools: testTools });

  describe('depth and cycles', () => {
    /** Agents level0 → level1 → … → level<deepest>, each offering the next as a tool. */
    function chain(deepest: number): AgentSpec {
      let next: AgentSpec | undefined;
      for (let level = deepest; level >= 0; level--) {
        next = defineAgent({
          name: `level${level}`,
          instructions: `You are agent number ${level} of the chain.`,
          tools: next ? [asTool(next, { description: 'The next level.' })] : [],
        });
      }
      return next!;
    }
    /** Each level up to `lastCaller` calls the next one once, then answers. */
    function scriptChain(lastCaller: number): void {
      for (let level = 0; level <= lastCaller; level++) {
        bed.server.scriptFor(
          `You are agent number ${level} of the chain.`,
          toolCalls([toolCall(`level${level + 1}`, { task: 'go one level deeper' }, { id: `call_${level}` })]),
          text(`level ${level} done`),
        );
      }
    }

    it('refuses a call at depth 6 under the default limit of 5 with a tool error result, and completes every run', async () => {
      scriptChain(5);

      const { output, handle } = await runToEnd(bed.client, bed.worker.taskQueue, { agent: chain(6), input: 'dig' });

      expect(output).toMatchObject({ terminationReason: 'completed', response: 'level 0 done' });
      const refused = sentToolResult(requestsOf(bed.server, 'You are agent number 5 of the chain.')[1], 'call_5');
      expect(refused).toBe('Error: agent "level6" cannot be called: nesting depth 6 exceeds the limit of 5');
      expect(requestsOf(bed.server, 'You are agent number 6 of the chain.')).toEqual([]);
      const events = await readStream(bed.client, handle.workflowId);
      expect(Math.max(...events.map((e) => e.depth))).toBe(5);
      const completed = events.filter((e) => e.type === 'RUN_COMPLETED');
      expect(completed.map((e) => e.depth)).toEqual([5, 4, 3, 2, 1, 0]);
      const deepest = completed[0].runId;
      expect(childStarts(await bed.client.workflow.getHandle(deepest).fetchHistory())).toEqual([]);
      expect((await bed.client.workflow.getHandle(deepest).describe()).status.name).toBe('COMPLETED');
    });

    it("applies a run's maxDepth override to every level below it", async () => {
      scriptChain(1);

      const { output } = await runToEnd(bed.client, bed.worker.taskQueue, {
        agent: chain(2),
        input: 'dig',
        context: { limits: { maxDepth: 1 } },
      });

      expect(output.response).toBe('level 0 done');
      expect(sentToolResult(requestsOf(bed.server, 'You are agent number 1 of the chain.')[1], 'call_1')).toBe(
        'Error: agent "level2" cannot be called: nesting depth 2 exceeds the limit of 1',
      );
    });

    it("runs a nested agent with its own maxSteps, not its parent's", async () => {
      const child = defineAgent({
        name: 'stepper',
        instructions: 'You are the stepper.',
        tools: ['echo'],
        maxSteps: 2,
      });
      const parent = defineAgent({
        name: 'hasty',
        instructions: 'You are the hasty parent.',
        maxSteps: 1,
        tools: [asTool(child, { description: 'Takes two steps.' })],
      });
      bed.server.scriptFor(
        'You are the hasty parent.',
        toolCalls([toolCall('stepper', { task: 'two steps' }, { id: 'call_stepper' })]),
        text('parent summary'),
      );
      bed.server.scriptFor(
        'You are the stepper.',
        toolCalls([toolCall('echo', { text: 'one' })]),
        toolCalls([toolCall('echo', { text: 'two' })]),
        text('stepper summary after two steps'),
      );

      const { output, handle } = await runToEnd(bed.client, bed.worker.taskQueue, { agent: parent, input: 'go' });

      expect(output).toMatchObject({ terminationReason: 'max_steps', response: 'parent summary' });
      const stepper = requestsOf(bed.server, 'You are the stepper.');
      expect(stepper.map(offeredTools)).toEqual([['echo'], ['echo'], []]);
      expect(sentToolResult(requestsOf(bed.server, 'You are the hasty parent.')[1], 'call_stepper')).toBe(
        'stepper summary after two steps',
      );
      const events = await readStream(bed.client, handle.workflowId);
      const childEnd = events.find((e) => e.depth === 1 && e.type === 'RUN_COMPLETED');
      expect(childEnd?.data).toMatchObject({ terminationReason: 'max_steps' });
    });

    it("holds a nested agent to what is left of the run's token limit even when its own limit is higher, and stops the parent with it", async () => {
      const spender = defineAgent({
        name: 'spender',
        instructions: 'You are the spender.',
        tools: ['echo'],
        limits: { maxTotalTokens: 100_000 },
      });
      const parent = defineAgent({
        name: 'frugal',
        instructions: 'You are the frugal parent.',
        tools: [asTool(spender, { description: 'Spends tokens.' })],
      });
      bed.server.scriptFor(
        'You are the frugal parent.',
        toolCalls([toolCall('spender', { task: 'spend' }, { id: 'call_spender' })], {
          usage: { prompt_tokens: 10, completion_tokens: 1 },
        }),
      );
      bed.server.scriptFor(
        'You are the spender.',
        toolCalls([toolCall('echo', { text: 'more' })], {
          content: 'spent a lot',
          usage: { prompt_tokens: 60, completion_tokens: 5 },
        }),
      );

      const { handle, output } = await runToEnd(bed.client, bed.worker.taskQueue, {
        agent: parent,
        input: 'go',
        context: { limits: { maxTotalTokens: 50 } },
      });

      const events = await readStream(bed.client, handle.workflowId);
      const childStart = events.find((e) => e.depth === 1 && e.type === 'RUN_STARTED');
      expect(childStart?.runId).toBe(`${handle.workflowId}/tool/3-call_spender`);
      expect(events.find((e) => e.depth === 1 && e.type === 'RUN_COMPLETED')?.data).toMatchObject({
        terminationReason: 'max_tokens',
        response: 'spent a lot',
      });
      expect(requestsOf(bed.server, 'You are the spender.')).toHaveLength(1);
      // The child spent the rest of the budget: the parent stops too, without another model call.
      expect(output).toMatchObject({ terminationReason: 'max_tokens', usage: { totalTokens: 76 } });
      expect(requestsOf(bed.server, 'You are the frugal parent.')).toHaveLength(1);
    });

    it('splits what is left of the budget among agents the model calls in parallel in one turn', async () => {
      const helper = (name: string) => defineAgent({ name, instructions: `You are helper ${name}.`, tools: ['echo'] });
      const parent = defineAgent({
        name: 'boss',
        instructions: 'You are the boss.',
        tools: [
          asTool(helper('h1'), { description: 'Helper one.' }),
          asTool(helper('h2'), { description: 'Helper two.' }),
        ],
      });
      // The boss spends 10 and calls both at once: 90 left, 45 each. Each spends 50 on its first call and stops;
      // with all 90 each, both would have gone on to call their tool.
      bed.server.scriptFor(
        'You are the boss.',
        toolCalls(
          [toolCall('h1', { task: 'a' }, { id: 'call_h1' }), toolCall('h2', { task: 'b' }, { id: 'call_h2' })],
          { usage: { prompt_tokens: 9, completion_tokens: 1 } },
        ),
      );
      for (const name of ['h1', 'h2'])
        bed.server.scriptFor(
          `You are helper ${name}.`,
          toolCalls([toolCall('echo', { text: 'more' })], {
            content: `${name} partial`,
            usage: { prompt_tokens: 45, completion_tokens: 5 },
          }),
        );

      const { handle, output } = await runToEnd(bed.client, bed.worker.taskQueue, {
        agent: parent,
        input: 'go',
        context: { limits: { maxTotalTokens: 100 } },
      });

      expect(requestsOf(bed.server, 'You are helper h1.')).toHaveLength(1);
      expect(requestsOf(bed.server, 'You are helper h2.')).toHaveLength(1);
      const events = await readStream(bed.client, handle.workflowId);
      expect(
        events
          .filter((e) => e.depth === 1 && e.type === 'RUN_COMPLETED')
          .map((e) => (e.data as { terminationReason?: string }).terminationReason),
      ).toEqual(['max_tokens', 'max_tokens']);
      expect(output).toMatchObject({ terminationReason: 'max_tokens', usage: { totalTokens: 110 } });
    });

    it('refuses A → B → A with a cycle error result, and both runs complete', async () => {
      const innerA = defineAgent({ name: 'A', instructions: 'You are agent A.' });
      const b = defineAgent({
        name: 'B',
        instructions: 'You are agent B.',
        tools: [asTool(innerA, { description: 'Agent A.' })],
      });
      const a = defineAgent({
        name: 'A',
        instructions: 'You are agent A.',
        tools: [asTool(b, { description: 'Agent B.' })],
      });
      bed.server.scriptFor(
        'You are agent A.',
        toolCalls([toolCall('B', { task: 'ask A back' }, { id: 'call_b' })]),
        text('A done'),
      );
      bed.server.scriptFor(
        'You are agent B.',
        toolCalls([toolCall('A', { task: 'loop' }, { id: 'call_a' })]),
        text('B done without A'),
      );

      const { output, handle } = await runToEnd(bed.client, bed.worker.taskQueue, { agent: a, input: 'go' });

      expect(output.response).toBe('A done');
      expect(sentToolResult(requestsOf(bed.server, 'You are agent B.')[1], 'call_a')).toBe(
        'Error: agent "A" cannot be called: it would form a cycle (A → B → A)',
      );
      expect(sentToolResult(requestsOf(bed.server, 'You are agent A.')[1], 'call_b')).toBe('B done without A');
      const childId = `${handle.workflowId}/tool/3-call_b`;
      expect(childStarts(await bed.client.workflow.getHandle(childId).fetchHistory())).toEqual([]);
      expect((await bed.client.workflow.getHandle(childId).describe()).status.name).toBe('COMPLETED');
      expect(requestsOf(bed.server, 'You are agent A.')).toHaveLength(2);
    });

    it('refuses an agent calling itself (A → A) with a cycle error result, and completes', async () => {
      const self = defineAgent({ name: 'A', instructions: 'You are agent A.' });
      const a = defineAgent({
        name: 'A',
        instructions: 'You are agent A.',
        tools: [asTool(self, { description: 'Myself.' })],
      });
      bed.server.scriptFor(
        'You are agent A.',
        toolCalls([toolCall('A', { task: 'recurse' }, { id: 'call_self' })]),
        text('A done alone'),
      );

      const { output, handle } = await runToEnd(bed.client, bed.worker.taskQueue, { agent: a, input: 'go' });

      expect(output).toMatchObject({
        terminationReason: 'completed',
        response: 'A done alone',
        metrics: { toolErrors: 1 },
      });
      expect(sentToolResult(bed.server.requests[1], 'call_self')).toBe(
        'Error: agent "A" cannot be called: it would form a cycle (A → A)',
      );
      expect(childStarts(await handle.fetchHistory())).toEqual([]);
    });
  });

  describe('healthchecks', () => {
    let worker: TestWorker | undefined;
    let warn: jest.SpyInstance;
    afterAll(async () => {
      await worker?.stop();
      warn?.mockRestore();
    });

    it('logs a sub-agent that fails its healthcheck when the worker starts and does not offer it to the model', async () => {
      const served = 'scripted-model'; // the only model the scripted server's /v1/models lists
      const healthy = defineAgent({ name: 'healthy', instructions: 'You are the healthy one.', tools: ['echo'] });
      const toolless = defineAgent({ name: 'toolless', tools: ['echo', 'tool_this_worker_lacks'] });
      const unserved = defineAgent({ name: 'unserved', model: 'model-nobody-serves' });
      // Not healthchecked, so offered whatever its model: only a misspelled tool stops a worker from starting at all.
      const unchecked = defineAgent({ name: 'unchecked', model: 'model-nobody-serves' });
      const parent = defineAgent({
        name: 'checked-parent',
        instructions: 'You are the checked parent.',
        tools: [
          asTool(healthy, { description: 'Healthy.', healthcheck: true }),
          asTool(toolless, { description: 'Lacks a tool.', healthcheck: true }),
          asTool(unserved, { description: 'Unserved model.', healthcheck: true }),
          asTool(unchecked, { description: 'Never checked.' }),
        ],
      });
      warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);

      worker = await startTestWorker({
        model: { ...bed.model(), defaultModel: served },
        tools: testTools,
        agents: [parent],
      });

      const warnings = warn.mock.calls.map((c) => String(c[0]));
      expect(warnings).toEqual(
        expect.arrayContaining([
          'agio: sub-agent "toolless" failed its healthcheck and will not be offered as a tool: the worker has no tool "tool_this_worker_lacks"',
          'agio: sub-agent "unserved" failed its healthcheck and will not be offered as a tool: the model endpoint does not serve "model-nobody-serves"',
        ]),
      );
      expect(warnings.filter((w) => /"(healthy|unchecked)"/.test(w))).toEqual([]);

      bed.server.scriptFor(
        'You are the checked parent.',
        toolCalls([toolCall('healthy', { task: 'echo hi' }, { id: 'call_healthy' })]),
        text('parent done'),
      );
      bed.server.scriptFor('You are the healthy one.', text('healthy answer'));
      const { output } = (await runToEnd(bed.client, worker.taskQueue, { agent: parent, input: 'go' })) as {
        output: RunOutput;
      };

      expect(output.response).toBe('parent done');
      const [first, second] = requestsOf(bed.server, 'You are the checked parent.');
      expect(offeredTools(first)).toEqual(['healthy', 'unchecked']);
      expect(sentToolResult(second, 'call_healthy')).toBe('healthy answer');
    });

    it('refuses to start a worker whose agent (or an agent it calls) names a tool the worker lacks', async () => {
      const misspelled = defineAgent({ name: 'misspelled', tools: ['echo', 'ecoh'] });
      const caller = defineAgent({ name: 'caller', tools: [asTool(misspelled, { description: 'Misspelled.' })] });
      await expect(startTestWorker({ model: bed.model(), tools: testTools, agents: [caller] })).rejects.toThrow(
        /agent "misspelled" names a tool the worker does not have: "ecoh"; this worker has .*\becho\b/,
      );
    });
  });
});
