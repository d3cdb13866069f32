// The bridge's AG-UI endpoint with the real @ag-ui/client HttpAgent: a nested run whose approval (asked in the agent
// used as a tool) ends the AG-UI run with an interrupt carrying expiresAt, answered by a resume that continues the same
// durable run; a stream dropped mid-answer resumed without loss (the same RunAgentInput again, and Last-Event-ID); and
// the requests the endpoint refuses.
import { buildResumeArray, type BaseEvent } from '@ag-ui/client';
import { asTool, defineAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { agUiAgent, readRaw, runRecorded, TEXT_STEP, TOOL_CALL_STEP } from '../helpers/ag-ui-client';
import { sentToolResult } from '../helpers/agent-runs';
import { askingAgent, keyOf, recordsOf } from '../helpers/approvals';
import { request } from '../helpers/bridge';
import { useTestBed } from '../helpers/test-bed';

const TOKEN = 'agui-token';
const child = askingAgent('agui-child', {
  permissions: [{ tool: 'record', action: 'ask', expiresAfterMs: 3_600_000 }],
});
const parent = defineAgent({
  name: 'agui-parent',
  instructions: 'You are agui-parent.',
  tools: [asTool(child, { description: 'Delegates to agui-child.' })],
});
const slow = defineAgent({ name: 'agui-slow', instructions: 'You are agui-slow.' });
const front = defineAgent({ name: 'agui-front', instructions: 'You are agui-front.' });

const types = (events: BaseEvent[]) => events.map((e) => e.type);

describe('AG-UI endpoint', () => {
  const bed = useTestBed({
    tools: testTools,
    agents: [parent, child, slow, front],
    bridge: { tokens: `${TOKEN}:default:agui-user,readonly:default:viewer:read,starter:default:starter:start` },
  });

  it('ends a nested run with an interrupt for the approval its sub-agent asks, and continues the same run on resume', async () => {
    bed.server.scriptFor(
      keyOf(parent),
      toolCalls([toolCall('agui-child', { task: 'record it' }, { id: 'call_child' })], {
        usage: { prompt_tokens: 10, completion_tokens: 5 },
      }),
      text('Parent is done', { usage: { prompt_tokens: 20, completion_tokens: 3 } }),
    );
    bed.server.scriptFor(
      keyOf(child),
      toolCalls([toolCall('record', { label: 'via ag-ui' }, { id: 'call_rec' })]),
      text('Child is done', { usage: { prompt_tokens: 7, completion_tokens: 2 } }),
    );
    const agent = agUiAgent(bed.bridge, 'agui-parent', 'thread-nested', [
      { id: 'u1', role: 'user', content: 'Record it through your helper' },
    ]);

    const first = await runRecorded(agent, { runId: 'ag-run-1' });
    const sub = first.events.find((e) => e.type === 'SUBAGENT_STARTED') as BaseEvent & { subagentRunId: string };
    expect(sub).toMatchObject({ name: 'agui-child', parentToolCallId: 'call_child' });
    expect(types(first.events)).toEqual([
      'RUN_STARTED',
      ...TOOL_CALL_STEP,
      'SUBAGENT_STARTED',
      ...TOOL_CALL_STEP,
      'CUSTOM',
      'SUBAGENT_FINISHED',
      'RUN_FINISHED',
    ]);
    expect(first.events.find((e) => e.type === 'TOOL_CALL_START' && e.toolCallId === 'call_rec')).toMatchObject({
      subagentRunId: sub.subagentRunId,
    });
    expect(first.events.at(-2)).toMatchObject({ outcome: { type: 'suspended' } });
    expect(agent.pendingInterrupts).toHaveLength(1);
    const [interrupt] = agent.pendingInterrupts;
    expect(interrupt).toMatchObject({ reason: 'tool_call', toolCallId: 'call_rec', subagentRunId: sub.subagentRunId });
    expect(Date.parse(interrupt.expiresAt!)).toBeGreaterThan(Date.now() + 3_500_000);
    expect(recordsOf(sub.subagentRunId)).toEqual([]);

    const resume = buildResumeArray(agent.pendingInterrupts, {
      [interrupt.id]: { status: 'resolved', payload: { approved: true } },
    });
    const second = await runRecorded(agent, { runId: 'ag-run-2', resume });
    expect(second.result).toBe('Parent is done');
    expect(types(second.events)).toEqual([
      'RUN_STARTED',
      'SUBAGENT_STARTED',
      'CUSTOM',
      'TOOL_CALL_RESULT',
      ...TEXT_STEP,
      'SUBAGENT_FINISHED',
      'TOOL_CALL_RESULT',
      ...TEXT_STEP,
      'RUN_FINISHED',
    ]);
    expect(second.events[2]).toMatchObject({ name: 'agio.TOOL_AUTH_GRANTED', value: { by: 'agui-user' } });
    expect(second.events.at(-1)).toMatchObject({
      outcome: { type: 'success' },
      // The calls made while this AG-UI run streamed: the child's last and the parent's last.
      usage: [{ inputTokens: 27, outputTokens: 5, totalTokens: 32 }],
    });
    expect(recordsOf(sub.subagentRunId).map((r) => r.label)).toEqual(['via ag-ui']);
    expect(agent.pendingInterrupts).toEqual([]);
    expect(agent.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toContain('Parent is done');

    // The same resume again (a client retrying) decides nothing twice and streams the same continuation.
    const again = await runRecorded(agUiAgent(bed.bridge, 'agui-parent', 'thread-nested'), {
      runId: 'ag-run-2',
      resume,
    });
    expect(types(again.events)).toEqual(types(second.events));
    expect(recordsOf(sub.subagentRunId)).toHaveLength(1);
  });

  it('resumes a dropped stream without loss: the same RunAgentInput again, or Last-Event-ID', async () => {
    bed.server.scriptFor(
      keyOf(slow),
      text('The quick brown fox jumps over the lazy dog, twice over.', { chunkSize: 4, delayMs: 40 }),
    );
    const url = `${bed.bridge.url}/ag-ui/agents/agui-slow`;
    const body = {
      threadId: 'thread-drop',
      runId: 'ag-drop-1',
      messages: [{ id: 'u1', role: 'user', content: 'Say it slowly' }],
      tools: [],
      context: [],
    };
    const dropped = await readRaw(url, TOKEN, body, { dropAt: (f) => f.event.type === 'TEXT_MESSAGE_CONTENT' });
    expect(dropped).toMatchObject({ status: 200, dropped: true });
    const lastId = dropped.frames.filter((f) => f.id).at(-1)!.id!;

    // Accept */* (curl's default) is answered with SSE, as a client that names no AG-UI format expects.
    const rest = await readRaw(url, TOKEN, body, { lastEventId: lastId, accept: '*/*' });
    const whole = [...dropped.frames, ...rest.frames].map((f) => f.event);
    expect(whole[0].type).toBe('RUN_STARTED');
    expect(rest.frames[0].event.type).not.toBe('RUN_STARTED');
    const said = whole.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta as string);
    expect(said.join('')).toBe('The quick brown fox jumps over the lazy dog, twice over.');
    expect(whole.at(-1)).toMatchObject({ type: 'RUN_FINISHED', result: expect.any(String) });

    // HttpAgent posting the same input again gets the whole run replayed, not a second run.
    const agent = agUiAgent(bed.bridge, 'agui-slow', 'thread-drop', [
      { id: 'u1', role: 'user', content: 'Say it slowly' },
    ]);
    const replay = await runRecorded(agent, { runId: 'ag-drop-1' });
    expect(replay.result).toBe('The quick brown fox jumps over the lazy dog, twice over.');
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: replay.result });
    expect(bed.server.requests).toHaveLength(1);
  });

  it("offers the frontend's tools to the model, ends the AG-UI run on their call, and continues the run with their answer", async () => {
    bed.server.scriptFor(
      keyOf(front),
      toolCalls([toolCall('pick_color', { palette: 'warm' }, { id: 'call_pick' })]),
      text('You picked amber'),
    );
    const tools = [
      {
        name: 'pick_color',
        description: 'Lets the user pick a color',
        parameters: { type: 'object', properties: { palette: { type: 'string' } } },
      },
    ];
    const agent = agUiAgent(bed.bridge, 'agui-front', 'thread-front', [
      { id: 'u1', role: 'user', content: 'A color?' },
    ]);

    const first = await runRecorded(agent, { runId: 'front-1', tools });
    expect(bed.server.requests[0].body.tools.map((t: { function: { name: string } }) => t.function)).toEqual([
      expect.objectContaining({ name: 'pick_color', parameters: tools[0].parameters }),
    ]);
    expect(first.events.find((e) => e.type === 'TOOL_CALL_START')).toMatchObject({ toolCallName: 'pick_color' });
    expect(first.events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'success', pendingToolCallIds: ['call_pick'] },
    });

    agent.addMessage({ id: 'tool-1', role: 'tool', toolCallId: 'call_pick', content: 'amber' });
    const second = await runRecorded(agent, { runId: 'front-2', tools });
    expect(second.result).toBe('You picked amber');
    expect(types(second.events)).toEqual(['RUN_STARTED', 'TOOL_CALL_RESULT', ...TEXT_STEP, 'RUN_FINISHED']);
    expect(sentToolResult(bed.server.requests[1], 'call_pick')).toBe('amber');
  });

  it('refuses a malformed RunAgentInput (400), an unknown agent (404) and a resume from a token that cannot decide (403)', async () => {
    const post = (path: string, body: unknown, token = TOKEN) =>
      request(`${bed.bridge.url}/ag-ui/agents/${path}`, { token, body });
    const valid = { threadId: 't', runId: 'r', messages: [{ id: 'u', role: 'user', content: 'hi' }] };

    expect(await post('agui-slow', { ...valid, messages: 'hi' })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request' } },
    });
    expect(await post('agui-slow', { ...valid, threadId: undefined })).toMatchObject({ status: 400 });
    expect(await post('agui-slow', { ...valid, messages: [] })).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringMatching(/user message/) } },
    });
    expect(await post('no-such-agent', valid)).toMatchObject({
      status: 404,
      body: { error: { code: 'agent_not_found' } },
    });
    expect(await post('agui-slow', valid, 'readonly')).toMatchObject({ status: 403 });
    const resume = [{ interruptId: 'agio1.e30', status: 'resolved', payload: { approved: true } }];
    expect(await post('agui-slow', { ...valid, resume }, 'starter')).toMatchObject({
      status: 403,
      body: { error: { message: expect.stringMatching(/decide/) } },
    });
    // An interrupt Agio cannot correlate is answered in the stream, as the protocol says: RUN_ERROR.
    const unknown = await readRaw(`${bed.bridge.url}/ag-ui/agents/agui-slow`, TOKEN, { ...valid, resume });
    expect(unknown.frames.map((f) => f.event)).toEqual([
      expect.objectContaining({ type: 'RUN_ERROR', code: 'unknown_interrupt' }),
    ]);
  });
});
