// callModel in a MockActivityEnvironment against the scripted OpenAI-compatible server: assembly, tools as JSON Schema,
// error classification, heartbeats, cancellation.
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createCallModel, heartbeatIntervalMs, heartbeating, noSink } from '../../activities/model/call-model';
import { ErrorType } from '../../common';
import { ScriptedModelServer, text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { quiet, newEnv, runIn, registry, modelConfig } from '../helpers/activity-env';
import type { CallModelInput } from '../../common/contracts/model-call';

let root: string;
beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'agio-act-')));
});
afterAll(() => fs.rm(root, { recursive: true, force: true }));

describe('callModel', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await ScriptedModelServer.start();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  const input = (extra: Partial<CallModelInput> = {}): CallModelInput => ({
    runId: 'run-1',
    rootRunId: 'run-1',
    stepId: 'run-1:1',
    stepIndex: 1,
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'hi' },
    ],
    tools: [],
    ...extra,
  });
  const callModel = () => createCallModel(modelConfig(server.baseURL), registry, () => noSink);

  async function failureOf(p: Promise<unknown>): Promise<unknown> {
    try {
      await p;
    } catch (err) {
      return err;
    }
    throw new Error('expected the call to fail');
  }

  it('assembles streamed text, reasoning and usage into the returned step', async () => {
    server.script(
      text('Hello there, durable world.', {
        reasoning: 'greet them',
        chunkSize: 3,
        usage: { prompt_tokens: 11, completion_tokens: 7 },
      }),
    );
    const out = await runIn(newEnv(), callModel(), input());
    expect(out.finishReason).toBe('stop');
    expect(out.usage).toEqual({ promptTokens: 11, completionTokens: 7, totalTokens: 18 });
    expect(out.step).toMatchObject({
      id: 'run-1:1',
      runId: 'run-1',
      index: 1,
      role: 'assistant',
      content: 'Hello there, durable world.',
      reasoningContent: 'greet them',
      usage: out.usage,
      metrics: { attempt: 1 },
    });
    expect(out.step.toolCalls).toBeUndefined();
    expect(server.requests[0].body).toMatchObject({
      model: 'scripted-model',
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(server.requests[0].body.tools).toBeUndefined();
  });

  it('assembles several tool calls with their ids and arguments, content null', async () => {
    server.script(
      toolCalls([toolCall('echo', { text: 'a', times: 2 }, { id: 'call_x' }), toolCall('sources', {})], {
        chunkSize: 2,
      }),
    );
    const out = await runIn(newEnv(), callModel(), input({ tools: ['echo', 'sources'] }));
    expect(out.finishReason).toBe('tool_calls');
    expect(out.step.content).toBeNull();
    expect(out.step.toolCalls).toEqual([
      { id: 'call_x', name: 'echo', arguments: '{"text":"a","times":2}' },
      { id: expect.stringMatching(/^call_/), name: 'sources', arguments: '{}' },
    ]);
  });

  it('offers the tools as JSON Schema generated from their zod parameters', async () => {
    server.script(text('ok'));
    await runIn(newEnv(), callModel(), input({ tools: ['echo'] }));
    const offered = server.requests[0].body.tools;
    expect(offered).toHaveLength(1);
    expect(offered[0]).toMatchObject({ type: 'function', function: { name: 'echo', description: 'Repeats text.' } });
    const params = offered[0].function.parameters;
    expect(params.type).toBe('object');
    expect(params.properties.text).toMatchObject({ type: 'string', description: 'what to repeat' });
    expect(params.properties.times).toMatchObject({ type: 'integer' });
    expect(params.required).toEqual(['text']);
  });

  it('sends the conversation in OpenAI’s message shape', async () => {
    server.script(text('ok'));
    await runIn(
      newEnv(),
      callModel(),
      input({
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'echo', arguments: '{"text":"x"}' }] },
          { role: 'tool', content: 'x', toolCallId: 'c1', name: 'echo' },
        ],
      }),
    );
    expect(server.requests[0].body.messages).toEqual([
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'echo', arguments: '{"text":"x"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'x' },
    ]);
  });

  it('fails with a retryable ModelConnectionError when the stream is cut mid-way', async () => {
    server.script(text('this answer never finishes', { chunkSize: 2, cutAfterChunks: 4 }));
    const err = await failureOf(runIn(newEnv(), callModel(), input()));
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).type).toBe(ErrorType.ModelConnectionError);
    expect((err as ApplicationFailure).nonRetryable).toBe(false);
  });

  it('fails with ModelRateLimited carrying Retry-After as nextRetryDelay on a 429', async () => {
    server.script({ error: { status: 429, headers: { 'retry-after': '2' } } });
    const err = await failureOf(runIn(newEnv(), callModel(), input()));
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).type).toBe(ErrorType.ModelRateLimited);
    expect((err as ApplicationFailure).nextRetryDelay).toBe(2000);
  });

  it('fails with a non-retryable ModelAuthError on a 401', async () => {
    server.script({ error: { status: 401 } });
    const err = (await failureOf(runIn(newEnv(), callModel(), input()))) as ApplicationFailure;
    expect(err.type).toBe(ErrorType.ModelAuthError);
    expect(err.nonRetryable).toBe(true);
  });

  it('fails with ModelMalformedResponse when the body holds no completion chunks', async () => {
    server.script({ rawBody: 'data: [DONE]\n\n' });
    const err = (await failureOf(runIn(newEnv(), callModel(), input()))) as ApplicationFailure;
    expect(err.type).toBe(ErrorType.ModelMalformedResponse);
  });

  it('heartbeats from its start and while a slow stream is running', async () => {
    server.script(text('abcd', { chunkSize: 1, delayMs: 600 }));
    const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 1500 }, { logger: quiet() });
    const beats: number[] = [];
    env.on('heartbeat', () => beats.push(Date.now()));
    const started = Date.now();
    await runIn(env, heartbeating(callModel()), input());
    // The first beat comes within the heartbeat timeout of the start, whatever runs before the stream.
    expect(beats[0] - started).toBeLessThan(1500);
    expect(beats.length).toBeGreaterThanOrEqual(2);
  });

  it('spaces heartbeats by the heartbeat timeout less 2 s (at least half of it), between 1 s and 4 s', () => {
    expect(heartbeatIntervalMs(6000)).toBe(4000);
    expect(heartbeatIntervalMs(20_000)).toBe(4000);
    expect(heartbeatIntervalMs(5000)).toBe(3000);
    expect(heartbeatIntervalMs(3000)).toBe(1500);
    expect(heartbeatIntervalMs(2000)).toBe(1000);
    expect(heartbeatIntervalMs(900)).toBe(1000);
    expect(heartbeatIntervalMs(undefined)).toBe(4000);
  });

  it('rejects with a CancelledFailure, not an ApplicationFailure, when cancelled while waiting for the model', async () => {
    server.script({ ...text('too late'), hangMs: 30_000 });
    const env = newEnv();
    const started = Date.now();
    const result = failureOf(runIn(env, callModel(), input()));
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    env.cancel();
    const err = await result;
    expect(err).toBeInstanceOf(CancelledFailure);
    expect(err).not.toBeInstanceOf(ApplicationFailure);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('rejects with a CancelledFailure when cancelled mid-stream', async () => {
    server.script(text('a long streamed answer', { chunkSize: 1, delayMs: 50 }));
    const env = newEnv();
    let chunks = 0;
    server.onChunk = () => {
      if (++chunks === 3) env.cancel();
    };
    const err = await failureOf(runIn(env, callModel(), input()));
    expect(err).toBeInstanceOf(CancelledFailure);
  });
});
