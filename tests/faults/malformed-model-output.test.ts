// Malformed model output, watched through a real bridge and SSE client: tool-call JSON that does not parse, an
// unknown tool, an empty body, a stream cut mid-way and a body that is not JSON. Each ends in a repaired turn (the
// model sees a clear error result, or the call is retried with STEP_RETRY) or a clear RUN_FAILED after a bounded
// number of attempts — never an endless retry.
import { defineAgent, ErrorType, type AgioEvent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { sentToolResult } from '../helpers/agent-runs';
import { expectWholeStream } from '../helpers/nested-runs';
import { agioEvents, readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';

const TOKEN = 'test-token';
/** Three attempts per model call: 1 s and 2 s between them. */
const LIMITS = { modelMaxAttempts: 3 };

describe('malformed model output', () => {
  const bed = useTestBed({ tools: testTools, bridge: true });
  const agent = defineAgent({ name: 'fragile', tools: ['echo'] });

  async function runAndRead(input: string): Promise<{ events: AgioEvent[]; runId: string }> {
    const run = await bed.bridge.agio.start(agent, input, { limits: LIMITS });
    const { events, closedBy } = await readSse(`${bed.bridge.url}/runs/${run.runId}/events`, {
      token: TOKEN,
      timeoutMs: 45_000,
    });
    expect(closedBy).toBe('server');
    return { events: agioEvents(events), runId: run.runId };
  }

  const toolSteps = (events: AgioEvent[]) =>
    events.filter((e) => e.type === 'STEP_COMPLETED' && e.snapshot?.role === 'tool').map((e) => e.snapshot!);
  const retries = (events: AgioEvent[]) =>
    events.filter((e) => e.type === 'STEP_RETRY').map((e) => [e.stepId, e.attempt]);

  it('answers tool-call JSON that does not parse with an error result, and the model repairs its call', async () => {
    bed.server.script(
      toolCalls([toolCall('echo', '{"text": "hi", ', { id: 'call_broken' })]),
      toolCalls([toolCall('echo', { text: 'hi' }, { id: 'call_fixed' })]),
      text('said hi'),
    );
    const { events, runId } = await runAndRead('say hi');

    expectWholeStream(events, runId);
    expect(toolSteps(events).map((s) => [s.toolCallId, s.isError])).toEqual([
      ['call_broken', true],
      ['call_fixed', false],
    ]);
    expect(toolSteps(events)[0].content).toMatch(
      /^Error: arguments for "echo" are not valid JSON .*send a JSON object matching the tool's schema$/,
    );
    expect(sentToolResult(bed.server.requests[1], 'call_broken')).toBe(toolSteps(events)[0].content);
    expect(events.at(-1)?.data).toMatchObject({ response: 'said hi' });
  });

  it('answers a call of a tool that does not exist with the list of tools it has, and the model repairs its call', async () => {
    bed.server.script(
      toolCalls([toolCall('teleport', { to: 'mars' }, { id: 'call_unknown' })]),
      toolCalls([toolCall('echo', { text: 'here' }, { id: 'call_known' })]),
      text('stayed here'),
    );
    const { events, runId } = await runAndRead('go to mars');

    expectWholeStream(events, runId);
    expect(toolSteps(events).map((s) => [s.toolCallId, s.isError, s.content])).toEqual([
      ['call_unknown', true, 'Error: unknown tool "teleport"; available tools: echo'],
      ['call_known', false, 'here'],
    ]);
  });

  it('retries an empty body and a stream cut mid-way, announcing each lost attempt, then completes', async () => {
    bed.server.script(
      { rawBody: '' },
      text('a stream that is cut', { cutAfterChunks: 3 }),
      text('the third attempt got through'),
    );
    const { events, runId } = await runAndRead('answer anyway');

    expectWholeStream(events, runId);
    expect(retries(events)).toEqual([
      [`${runId}:1`, 2],
      [`${runId}:1`, 3],
    ]);
    const completed = events.filter((e) => e.type === 'STEP_COMPLETED' && e.snapshot?.role === 'assistant');
    expect(completed.map((e) => [e.snapshot!.content, e.snapshot!.metrics?.attempt])).toEqual([
      ['the third attempt got through', 3],
    ]);
    expect(bed.server.requests).toHaveLength(3);
  });

  it.each([
    [
      'a body that is not JSON',
      { rawBody: 'data: {"choices": [oops\n\n' },
      ErrorType.ModelMalformedResponse,
      /malformed response/,
    ],
    [
      'an HTML error page instead of a stream',
      { rawBody: '<html><body>502 Bad Gateway</body></html>' },
      ErrorType.ModelMalformedResponse,
      /no completion chunks/,
    ],
    [
      'a stream that is always cut',
      { ...text('never finished'), cutAfterChunks: 2 },
      ErrorType.ModelConnectionError,
      /without a finish reason/,
    ],
  ])('fails the run with a clear error after 3 attempts of %s', async (_name, turn, type, message) => {
    bed.server.script(turn, turn, turn);
    const { events, runId } = await runAndRead('try');

    expectWholeStream(events, runId, 'RUN_FAILED');
    expect(retries(events)).toEqual([
      [`${runId}:1`, 2],
      [`${runId}:1`, 3],
    ]);
    expect(events.at(-1)?.data).toMatchObject({ error: { type, message: expect.stringMatching(message) } });
    expect(bed.server.requests).toHaveLength(3);
    expect((await bed.client.workflow.getHandle(runId).describe()).status.name).toBe('FAILED');
  });
});
