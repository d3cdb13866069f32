// Runaway agents are stopped by their limits with a clear termination reason, seen by a real SSE client: a model
// that never stops calling tools (maxSteps, then one summary call without tools), a chain of agents deeper than
// maxDepth (the deepest call is refused with an error result), a child that spends the tree's token budget (child
// and parent stop with max_tokens, no further model call), and an endless loop agent stopped by the same budget.
import { asTool, defineAgent, loopAgent, type AgentSpec, type AgioEvent, type AnyAgentSpec } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { offeredTools, sentToolResult } from '../helpers/agent-runs';
import { expectWholeStream, requestsOf } from '../helpers/nested-runs';
import { agioEvents, readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';
import { agentKey, subAgent } from '../helpers/workflow-agents';

const TOKEN = 'test-token';
const usage = (prompt_tokens: number, completion_tokens: number) => ({ usage: { prompt_tokens, completion_tokens } });

describe('runaway agents', () => {
  const bed = useTestBed({ tools: testTools, bridge: true });

  async function runAndRead(
    agent: AnyAgentSpec,
    input: string,
    limits = {},
  ): Promise<{ events: AgioEvent[]; runId: string }> {
    const run = await bed.bridge.agio.start(agent, input, { limits });
    const { events, closedBy } = await readSse(`${bed.bridge.url}/runs/${run.runId}/events`, {
      token: TOKEN,
      timeoutMs: 45_000,
    });
    expect(closedBy).toBe('server');
    return { events: agioEvents(events), runId: run.runId };
  }
  const ends = (events: AgioEvent[]) =>
    events.filter((e) => e.type === 'RUN_COMPLETED').map((e) => [e.agent, e.depth, e.data?.terminationReason]);

  it('stops a model that never stops calling tools at maxSteps, with one last call without tools for a summary', async () => {
    const echo = (i: number) => toolCalls([toolCall('echo', { text: `again ${i}` })]);
    bed.server.script(echo(1), echo(2), echo(3), text('summary after three steps'));
    const { events, runId } = await runAndRead(
      defineAgent({ name: 'restless', tools: ['echo'], maxSteps: 3 }),
      'never stop',
    );

    expectWholeStream(events, runId);
    expect(events.at(-1)?.data).toMatchObject({
      terminationReason: 'max_steps',
      response: 'summary after three steps',
    });
    expect(bed.server.requests.map(offeredTools)).toEqual([['echo'], ['echo'], ['echo'], []]);
  });

  it('refuses the call that would nest deeper than maxDepth with an error result; every run of the chain completes', async () => {
    const names = ['d0', 'd1', 'd2', 'd3'];
    let below: AgentSpec | undefined;
    for (const name of [...names].reverse()) {
      below = defineAgent({
        name,
        instructions: `You are ${name}.`,
        tools: below ? [asTool(below, { description: `Calls ${below.name}.` })] : [],
      });
    }
    for (const [i, name] of names.slice(0, 3).entries()) {
      bed.server.scriptFor(
        `You are ${name}.`,
        toolCalls([toolCall(names[i + 1], { task: 'go deeper' }, { id: `call_${names[i + 1]}` })]),
        text(`${name} done`),
      );
    }
    const { events, runId } = await runAndRead(below!, 'dig', { maxDepth: 2 });

    expectWholeStream(events, runId);
    expect(sentToolResult(requestsOf(bed.server, 'You are d2.')[1], 'call_d3')).toBe(
      'Error: agent "d3" cannot be called: nesting depth 3 exceeds the limit of 2',
    );
    expect(requestsOf(bed.server, 'You are d3.')).toHaveLength(0);
    expect(ends(events)).toEqual([
      ['d2', 2, 'completed'],
      ['d1', 1, 'completed'],
      ['d0', 0, 'completed'],
    ]);
  });

  it("stops a child that spends the tree's token budget, and its parent with it, without another model call", async () => {
    const spender = defineAgent({ name: 'spender', instructions: 'You are the spender.', tools: ['echo'] });
    const parent = defineAgent({
      name: 'budgeted',
      instructions: 'You are the budgeted parent.',
      tools: [asTool(spender, { description: 'Spends.' })],
    });
    bed.server.scriptFor(
      'You are the budgeted parent.',
      toolCalls([toolCall('spender', { task: 'spend' }, { id: 'call_spend' })], {
        content: 'delegating',
        ...usage(30, 10),
      }),
    );
    bed.server.scriptFor(
      'You are the spender.',
      toolCalls([toolCall('echo', { text: 'more' })], { content: 'spent it all', ...usage(120, 30) }),
    );
    const { events, runId } = await runAndRead(parent, 'spend wisely', { maxTotalTokens: 100 });

    expectWholeStream(events, runId);
    expect(ends(events)).toEqual([
      ['spender', 1, 'max_tokens'],
      ['budgeted', 0, 'max_tokens'],
    ]);
    expect(events.at(-1)).toMatchObject({ usage: { totalTokens: 190 }, data: { response: 'delegating' } });
    expect(bed.server.requests).toHaveLength(2);
  });

  it('stops an endless loop agent once its sub-agents have spent the budget', async () => {
    const ticker = subAgent('ticker');
    for (let i = 1; i <= 3; i++) bed.server.scriptFor(agentKey('ticker'), text(`tick ${i}`, usage(30, 10)));
    const { events, runId } = await runAndRead(loopAgent({ name: 'forever', subAgents: [ticker] }), 'tick', {
      maxTotalTokens: 100,
    });

    expectWholeStream(events, runId);
    expect(events.at(-1)).toMatchObject({
      usage: { totalTokens: 120 },
      data: { terminationReason: 'max_tokens', response: 'tick 3' },
    });
    expect(ends(events).filter(([, depth]) => depth === 1)).toEqual([
      ['ticker', 1, 'completed'],
      ['ticker', 1, 'completed'],
      ['ticker', 1, 'completed'],
    ]);
  });
});
