// Sessions through the real wiring (worker stores → workflow → bridge), on memory and on MongoDB (FerretDB): a
// second run in a session sees the first run's conversation after its system prompt and before its own input,
// and GET /sessions/:id lists both runs with their steps; a nested run is listed but is not the conversation.
import { asTool, defineAgent } from '../../common';
import { createMemoryStores, type Stores } from '../../stores';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { heldAnswer, sentMessages } from '../helpers/agent-runs';
import { request } from '../helpers/bridge';
import { requestsOf } from '../helpers/nested-runs';
import { openMongoStores } from '../helpers/mongo-stores';
import { uniqueId } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';

const TOKEN = 'session-token';

describe.each([
  ['memory', async () => ({ stores: createMemoryStores(), close: async () => undefined })],
  ['mongodb (FerretDB)', openMongoStores],
])('sessions on %s stores', (_name, open: () => Promise<{ stores: Stores; close(): Promise<void> }>) => {
  const bed = useTestBed({ tools: testTools, stores: open, bridge: { tokens: `${TOKEN}:default` } });

  it("continues a session: the second run's first request holds the first run's conversation, and GET /sessions/:id lists both runs and their steps", async () => {
    const agent = defineAgent({ name: 'chat', instructions: 'You are the session agent.', tools: ['echo'] });
    const sessionId = uniqueId('session');
    bed.server.script(
      toolCalls([toolCall('echo', { text: 'ping', times: 2 }, { id: 'call_echo' })], {
        usage: { prompt_tokens: 11, completion_tokens: 4 },
      }),
      text('first answer', { usage: { prompt_tokens: 20, completion_tokens: 2 } }),
      text('second answer', { usage: { prompt_tokens: 30, completion_tokens: 3 } }),
    );

    const first = await bed.bridge.agio.start(agent, 'first question', { sessionId });
    expect((await first.result()).response).toBe('first answer');
    const second = await bed.bridge.agio.start(agent, 'second question', { sessionId });
    const output = await second.result();

    expect(output.response).toBe('second answer');
    expect(output.sessionId).toBe(sessionId);
    expect(bed.server.requests).toHaveLength(3);
    const system = { role: 'system', content: 'You are the session agent.' };
    const firstRun = sentMessages(bed.server.requests[1]);
    // What the first run's last request held: its system prompt, input, tool call and tool result.
    expect(firstRun).toEqual([
      system,
      { role: 'user', content: 'first question' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_echo', type: 'function', function: { name: 'echo', arguments: '{"text":"ping","times":2}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_echo', content: 'ping ping' },
    ]);
    // The second run starts from all of that plus the first answer, between its system prompt and its own input.
    expect(sentMessages(bed.server.requests[2])).toEqual([
      ...firstRun,
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'second question' },
    ]);
    // The earlier conversation is context, not the second run's own steps.
    expect(output.steps.map((s) => [s.index, s.role, s.content])).toEqual([
      [0, 'system', 'You are the session agent.'],
      [1, 'user', 'second question'],
      [2, 'assistant', 'second answer'],
    ]);

    const { status, body } = await request(`${bed.bridge.url}/sessions/${sessionId}`, { token: TOKEN });
    expect(status).toBe(200);
    expect(body).toMatchObject({ sessionId, createdAt: expect.any(Number), updatedAt: expect.any(Number) });
    expect(body.runs).toEqual([
      expect.objectContaining({
        runId: first.runId,
        rootRunId: first.runId,
        sessionId,
        agent: 'chat',
        status: 'completed',
        usage: { promptTokens: 31, completionTokens: 6, totalTokens: 37, costUnknown: true },
      }),
      expect.objectContaining({
        runId: second.runId,
        rootRunId: second.runId,
        sessionId,
        agent: 'chat',
        status: 'completed',
        usage: { promptTokens: 30, completionTokens: 3, totalTokens: 33, costUnknown: true },
      }),
    ]);
    expect(body.runs[0].startedAt).toBeLessThanOrEqual(body.runs[1].startedAt);
    expect(body.runs[0].endedAt).toBeGreaterThanOrEqual(body.runs[0].startedAt);
    expect(body.steps.map((r: { runId: string }) => r.runId)).toEqual([first.runId, second.runId]);
    const [firstSteps, secondSteps] = body.steps.map((r: { steps: unknown[] }) => r.steps);
    expect(
      firstSteps.map((s: { id: string; index: number; role: string; content: string | null; toolCallId?: string }) => [
        s.id,
        s.index,
        s.role,
        s.content,
        s.toolCallId ?? null,
      ]),
    ).toEqual([
      [`${first.runId}:0`, 0, 'system', 'You are the session agent.', null],
      [`${first.runId}:1`, 1, 'user', 'first question', null],
      [`${first.runId}:2`, 2, 'assistant', null, null],
      [`${first.runId}:3`, 3, 'tool', 'ping ping', 'call_echo'],
      [`${first.runId}:4`, 4, 'assistant', 'first answer', null],
    ]);
    expect(firstSteps[2].toolCalls).toEqual([
      { id: 'call_echo', name: 'echo', arguments: '{"text":"ping","times":2}' },
    ]);
    expect(firstSteps[2].usage).toEqual({ promptTokens: 11, completionTokens: 4, totalTokens: 15, costUnknown: true });
    // The stored steps are the steps the run returned.
    expect(secondSteps).toEqual(JSON.parse(JSON.stringify(output.steps)));
  });

  it('has a run cancelled at once closed and recorded by the time its stream ends, and continues the session from what it stored', async () => {
    const agent = defineAgent({ name: 'waiter', instructions: 'You are the waiting agent.' });
    const followUp = defineAgent({ name: 'follow-up', instructions: 'You are the follow-up agent.' });
    const sessionId = uniqueId('cancel-session');
    const { answer, release } = heldAnswer(text('never seen'));
    // The first run's model call (if it gets that far) hangs until the end of the test.
    bed.server.setDefault(answer);
    bed.server.scriptFor('You are the follow-up agent.', text('after the cancel'));

    try {
      const first = await bed.bridge.agio.start(agent, 'first question', { sessionId });
      const reading = (async () => {
        const types: string[] = [];
        for await (const event of first.stream({ maxPollMs: 50 })) types.push(event.type);
        return types;
      })();
      await first.cancel();
      expect((await reading).at(-1)).toBe('RUN_CANCELLED');
      // At once: the run has closed (its end is recorded before its terminal event), and the stores say how it ended.
      expect((await first.workflow.describe()).status.name).toBe('CANCELLED');
      const { body } = await request(`${bed.bridge.url}/sessions/${sessionId}`, { token: TOKEN });
      expect(body.runs).toEqual([
        expect.objectContaining({ runId: first.runId, status: 'cancelled', endedAt: expect.any(Number) }),
      ]);
      expect(body.steps[0].steps.map((s: { role: string; content: string }) => [s.role, s.content])).toEqual([
        ['system', 'You are the waiting agent.'],
        ['user', 'first question'],
      ]);

      const second = await bed.bridge.agio.start(followUp, 'second question', { sessionId });
      expect((await second.result()).response).toBe('after the cancel');
      // Another agent continues the session: its own system prompt, then the conversation so far (never a system step).
      expect(sentMessages(requestsOf(bed.server, 'You are the follow-up agent.')[0])).toEqual([
        { role: 'system', content: 'You are the follow-up agent.' },
        { role: 'user', content: 'first question' },
        { role: 'user', content: 'second question' },
      ]);
    } finally {
      release();
    }
  });

  it("lists a nested run with the session's runs, but continues the session from the root runs' conversation only", async () => {
    const helper = defineAgent({ name: 'session-helper', instructions: 'You are the session helper.' });
    const agent = defineAgent({
      name: 'delegator',
      instructions: 'You are the session delegator.',
      tools: [asTool(helper, { description: 'Helps.' })],
    });
    const sessionId = uniqueId('nested-session');
    bed.server.scriptFor(
      'You are the session delegator.',
      toolCalls([toolCall('session-helper', { task: 'find the answer' }, { id: 'call_helper' })]),
      text('delegated answer'),
      text('follow-up answer'),
    );
    bed.server.scriptFor('You are the session helper.', text('the helper found it'));

    const first = await bed.bridge.agio.start(agent, 'first question', { sessionId });
    await first.result();
    const second = await bed.bridge.agio.start(agent, 'follow-up question', { sessionId });
    expect((await second.result()).response).toBe('follow-up answer');

    const childId = `${first.runId}/tool/3-call_helper`;
    const requests = bed.server.requests.filter(
      (r) => sentMessages(r)[0]?.content === 'You are the session delegator.',
    );
    expect(requests).toHaveLength(3);
    expect(sentMessages(requests[2]).map((m) => [m.role, m.content])).toEqual([
      ['system', 'You are the session delegator.'],
      ['user', 'first question'],
      ['assistant', null],
      ['tool', 'the helper found it'],
      ['assistant', 'delegated answer'],
      ['user', 'follow-up question'],
    ]);
    const { status, body } = await request(`${bed.bridge.url}/sessions/${sessionId}`, { token: TOKEN });
    expect(status).toBe(200);
    expect(
      body.runs.map((r: { runId: string; parentRunId?: string; rootRunId: string; agent: string; status: string }) => [
        r.runId,
        r.parentRunId ?? null,
        r.rootRunId,
        r.agent,
        r.status,
      ]),
    ).toEqual([
      [first.runId, null, first.runId, 'delegator', 'completed'],
      [childId, first.runId, first.runId, 'session-helper', 'completed'],
      [second.runId, null, second.runId, 'delegator', 'completed'],
    ]);
    const childSteps = body.steps.find((r: { runId: string }) => r.runId === childId).steps;
    expect(childSteps.map((s: { role: string }) => s.role)).toEqual(['system', 'user', 'assistant']);
    expect(childSteps[2].content).toBe('the helper found it');
  });
});
