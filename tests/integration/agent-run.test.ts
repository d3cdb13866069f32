// The agentRun loop on a real dev server against the scripted model: answers, usage, parallel and sequential
// tool turns (proved from the workflow history), the max-steps summary, which tools the model is offered, and an
// agent naming a tool the worker lacks.
import { WorkflowFailedError } from '@temporalio/client';
import { ErrorType, defineAgent } from '../../common';
import { MAX_STEPS_PROMPT } from '../../workflows/lifecycle/run-context';
import { recordedToolCalls, testTools } from '../fixtures/test-tools';
import {
  activities,
  offeredTools,
  runToEnd,
  sentMessages,
  sentToolResults,
  startRun,
  workflowTaskCompletedIds,
} from '../helpers/agent-runs';
import { readStream } from '../helpers/nested-runs';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { useTestBed } from '../helpers/test-bed';

describe('agentRun workflow', () => {
  const bed = useTestBed({ tools: testTools });

  it("returns the model's answer with the usage of its usage chunk when the agent has no tools", async () => {
    bed.server.script(text('The answer is 42.', { usage: { prompt_tokens: 31, completion_tokens: 7 } }));
    const agent = defineAgent({ name: 'plain', instructions: 'You help {user}.' });

    const { output, handle } = await runToEnd(bed.client, bed.worker.taskQueue, {
      agent,
      input: 'What is the answer?',
      state: { user: 'Ada' },
    });

    expect(output.response).toBe('The answer is 42.');
    expect(output.terminationReason).toBe('completed');
    expect(output.usage).toEqual({ promptTokens: 31, completionTokens: 7, totalTokens: 38, costUnknown: true });
    expect(output.runId).toBe(handle.workflowId);
    expect(output.metrics).toMatchObject({ steps: 3, modelCalls: 1, toolCalls: 0, toolErrors: 0 });
    expect(output.steps.map((s) => [s.index, s.role, s.content])).toEqual([
      [0, 'system', 'You help Ada.'],
      [1, 'user', 'What is the answer?'],
      [2, 'assistant', 'The answer is 42.'],
    ]);
    expect(bed.server.requests).toHaveLength(1);
    const body = bed.server.requests[0].body;
    expect(body).toMatchObject({ model: 'scripted', stream: true, stream_options: { include_usage: true } });
    expect(body).not.toHaveProperty('tools');
    expect(sentMessages(bed.server.requests[0])).toEqual([
      { role: 'system', content: 'You help Ada.' },
      { role: 'user', content: 'What is the answer?' },
    ]);
  });

  it('runs two tool calls of one turn in parallel (scheduled by one workflow task) and sends both results in call order', async () => {
    bed.server.script(
      toolCalls(
        [
          toolCall('record', { label: 'slow', ms: 600 }, { id: 'call_slow' }),
          toolCall('record', { label: 'fast', ms: 50 }, { id: 'call_fast' }),
        ],
        {
          usage: { prompt_tokens: 20, completion_tokens: 10 },
        },
      ),
      text('both done', { usage: { prompt_tokens: 40, completion_tokens: 3 } }),
    );
    const agent = defineAgent({ name: 'parallel', tools: ['record'] });

    const { output, handle } = await runToEnd(bed.client, bed.worker.taskQueue, { agent, input: 'go' });

    expect(output.response).toBe('both done');
    expect(output.usage).toEqual({ promptTokens: 60, completionTokens: 13, totalTokens: 73, costUnknown: true });
    const history = await handle.fetchHistory();
    const runs = activities(history, 'runTool');
    expect(runs).toHaveLength(2);
    expect(runs[0].workflowTaskCompletedEventId).toBe(runs[1].workflowTaskCompletedEventId);
    const between = workflowTaskCompletedIds(history).filter(
      (id) => id > runs[0].scheduledEventId && id < runs[1].scheduledEventId,
    );
    expect(between).toEqual([]);
    // The executions overlapped in time, and the fast one finished first...
    const calls = recordedToolCalls.filter((c) => c.runId === handle.workflowId);
    const slow = calls.find((c) => c.label === 'slow')!;
    const fast = calls.find((c) => c.label === 'fast')!;
    expect(fast.startedAt).toBeLessThan(slow.endedAt);
    expect(slow.startedAt).toBeLessThan(fast.endedAt);
    // ...yet the model sees the results in the order it asked for them.
    expect(sentToolResults(bed.server.requests[1])).toEqual([
      { id: 'call_slow', content: 'recorded slow' },
      { id: 'call_fast', content: 'recorded fast' },
    ]);
    const assistant = sentMessages(bed.server.requests[1]).find((m) => m.role === 'assistant');
    expect(assistant?.tool_calls?.map((c) => c.id)).toEqual(['call_slow', 'call_fast']);
    expect(output.steps.filter((s) => s.role === 'tool').map((s) => [s.index, s.toolCallId])).toEqual([
      [2, 'call_slow'],
      [3, 'call_fast'],
    ]);
  });

  it('runs the tool calls of a sequentialToolCalls agent one after another, each scheduled by its own workflow task', async () => {
    bed.server.script(
      toolCalls([
        toolCall('record', { label: 'first', ms: 300 }, { id: 'call_first' }),
        toolCall('record', { label: 'second', ms: 10 }, { id: 'call_second' }),
      ]),
      text('in order'),
    );
    const agent = defineAgent({ name: 'sequential', tools: ['record'], sequentialToolCalls: true });

    const { output, handle } = await runToEnd(bed.client, bed.worker.taskQueue, { agent, input: 'go' });

    expect(output.response).toBe('in order');
    const history = await handle.fetchHistory();
    const runs = activities(history, 'runTool');
    expect(runs).toHaveLength(2);
    expect(runs[1].workflowTaskCompletedEventId).toBeGreaterThan(runs[0].workflowTaskCompletedEventId);
    const between = workflowTaskCompletedIds(history).filter(
      (id) => id > runs[0].scheduledEventId && id < runs[1].scheduledEventId,
    );
    expect(between).toHaveLength(1);
    const calls = recordedToolCalls.filter((c) => c.runId === handle.workflowId);
    expect(calls.map((c) => c.label)).toEqual(['first', 'second']);
    expect(calls[1].startedAt).toBeGreaterThanOrEqual(calls[0].endedAt);
    expect(sentToolResults(bed.server.requests[1]).map((r) => r.id)).toEqual(['call_first', 'call_second']);
  });

  it('asks for a final answer without tools, with the max-steps prompt, once maxSteps model calls are spent', async () => {
    bed.server.script(
      toolCalls([toolCall('record', { label: 'one' }, { id: 'call_1' })]),
      toolCalls([toolCall('record', { label: 'two' }, { id: 'call_2' })]),
      text('summary of what I found'),
    );
    const agent = defineAgent({ name: 'bounded', tools: ['record'], maxSteps: 2 });

    const { output } = await runToEnd(bed.client, bed.worker.taskQueue, { agent, input: 'loop forever' });

    expect(output.terminationReason).toBe('max_steps');
    expect(output.response).toBe('summary of what I found');
    expect(output.metrics).toMatchObject({ modelCalls: 3, toolCalls: 2, toolErrors: 0 });
    expect(bed.server.requests).toHaveLength(3);
    expect(offeredTools(bed.server.requests[0])).toEqual(['record']);
    expect(offeredTools(bed.server.requests[1])).toEqual(['record']);
    const last = bed.server.requests[2];
    expect(last.body).not.toHaveProperty('tools');
    expect(last.body).not.toHaveProperty('tool_choice');
    const messages = sentMessages(last);
    expect(messages[messages.length - 1]).toEqual({ role: 'user', content: MAX_STEPS_PROMPT });
    // The second turn's tool result is there too: the summary sees everything done so far.
    expect(messages[messages.length - 2]).toEqual({ role: 'tool', tool_call_id: 'call_2', content: 'recorded two' });
  });

  it("keeps the agent's maxSteps when the run's context overrides another limit", async () => {
    bed.server.script(
      toolCalls([toolCall('record', { label: 'only' }, { id: 'call_only' })]),
      text('stopped after one step'),
    );
    const agent = defineAgent({ name: 'one-step', tools: ['record'], maxSteps: 1 });

    const { output } = await runToEnd(bed.client, bed.worker.taskQueue, {
      agent,
      input: 'go',
      context: { limits: { maxToolOutputBytes: 4096 } },
    });

    expect(output.terminationReason).toBe('max_steps');
    expect(output.response).toBe('stopped after one step');
    expect(bed.server.requests).toHaveLength(2);
    expect(bed.server.requests[1].body).not.toHaveProperty('tools');
  });

  it('fails a run whose agent names a tool the worker lacks before its first model call, naming the agent, the tool and what the worker has', async () => {
    const agent = defineAgent({ name: 'partly-equipped', tools: ['record', 'not_in_this_worker', 'echo'] });

    const handle = await startRun(bed.client, bed.worker.taskQueue, { agent, input: 'hello' });
    const failure: unknown = await handle.result().catch((err: unknown) => err);

    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toMatchObject({
      type: ErrorType.UnknownTool,
      nonRetryable: true,
      message: expect.stringMatching(
        /^agent "partly-equipped" names a tool the worker does not have: "not_in_this_worker"; this worker has .*\brecord\b/,
      ),
    });
    expect(bed.server.requests).toHaveLength(0);
    const events = await readStream(bed.client, handle.workflowId);
    expect(events.map((e) => e.type)).toEqual(['RUN_STARTED', 'STEP_COMPLETED', 'RUN_FAILED']);
    expect(events.at(-1)?.data).toMatchObject({ error: { type: ErrorType.UnknownTool } });
  });
});
