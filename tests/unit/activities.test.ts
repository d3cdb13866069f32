// The activities in a MockActivityEnvironment: runTool (lookup, argument validation, errors as results,
// truncation, workspace confinement) and callModel against the scripted OpenAI-compatible server
// (assembly, tools as JSON Schema, error classification, cancellation).
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { AgentHealth } from '../../activities/healthcheck';
import {
  createCallModel,
  heartbeatIntervalMs,
  heartbeating,
  noSink,
  type CallModelInput,
  type ModelConfig,
} from '../../activities/model';
import {
  createToolActivities,
  resolveWorkspaceDir,
  truncateOutput,
  type RunToolInput,
} from '../../activities/run-tool';
import { defineTool, type ToolDefinition } from '../../activities/tools/define-tool';
import { ToolRegistry } from '../../activities/tools/registry';
import { ErrorType, asTool, defineAgent, loopAgent, sequentialAgent } from '../../common';
import { ScriptedModelServer, text, toolCall, toolCalls } from '../../devkit/scripted-model-server';

const quiet = () => new DefaultLogger('ERROR', () => undefined);
const newEnv = () => new MockActivityEnvironment({}, { logger: quiet() });

/** Runs an activity in `env` with its result typed (MockActivityEnvironment.run cannot infer it). */
function runIn<A extends unknown[], R>(
  env: MockActivityEnvironment,
  fn: (...args: A) => Promise<R>,
  ...args: A
): Promise<R> {
  return env.run(fn, ...args) as Promise<R>;
}

const seen: { workspace?: string; idempotencyKey?: string } = {};
const tools: ToolDefinition[] = [
  defineTool({
    name: 'echo',
    description: 'Repeats text.',
    parameters: z.object({
      text: z.string().describe('what to repeat'),
      times: z.number().int().positive().optional(),
    }),
    execute: async ({ text, times }, ctx) => {
      seen.workspace = ctx.workspace;
      seen.idempotencyKey = ctx.idempotencyKey;
      return text.repeat(times ?? 1);
    },
  }),
  defineTool({
    name: 'sources',
    description: 'Answers with metadata.',
    parameters: z.object({}),
    execute: async () => ({ content: 'found 2', metadata: { sources: ['a', 'b'] } }),
  }),
  defineTool({
    name: 'boom',
    description: 'Always throws.',
    parameters: z.object({}),
    execute: async () => {
      throw new Error('disk on fire');
    },
  }),
  defineTool({
    name: 'big',
    description: 'Returns a lot.',
    parameters: z.object({ bytes: z.number().int() }),
    execute: async ({ bytes }) => ({ content: 'x'.repeat(bytes), metadata: { exitCode: 0 } }),
  }),
];
const registry = new ToolRegistry(tools);
const modelConfig = (baseURL = 'http://127.0.0.1:9/v1'): ModelConfig => ({
  baseURL,
  apiKey: 'test-key',
  defaultModel: 'scripted-model',
});

let root: string;
beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'agio-act-')));
});
afterAll(() => fs.rm(root, { recursive: true, force: true }));

describe('runTool', () => {
  const run = (input: Partial<RunToolInput>) => {
    const activities = createToolActivities(registry, root, new AgentHealth(registry, modelConfig()));
    return runIn(newEnv(), activities.runTool, {
      runId: 'run-1',
      toolCallId: 'call-1',
      name: 'echo',
      arguments: '{"text":"hi"}',
      workspace: 'runs/run-1',
      maxOutputBytes: 64 * 1024,
      ...input,
    });
  };

  it('runs a tool with validated arguments in the run’s workspace and returns its text', async () => {
    expect(await run({ arguments: '{"text":"ab","times":3}' })).toEqual({ content: 'ababab', isError: false });
    expect(seen.workspace).toBe(path.join(root, 'runs/run-1'));
    expect((await fs.stat(seen.workspace!)).isDirectory()).toBe(true);
    expect(seen.idempotencyKey).toBe('run-1:call-1');
  });

  it('treats empty arguments as an empty object', async () => {
    expect(await run({ name: 'sources', arguments: '  ' })).toMatchObject({ content: 'found 2', isError: false });
  });

  it('answers an unknown tool with an error result listing the available tools', async () => {
    const out = await run({ name: 'nope' });
    expect(out.isError).toBe(true);
    expect(out.content).toBe('Error: unknown tool "nope"; available tools: echo, sources, boom, big');
  });

  it('answers arguments that are not JSON with an error result', async () => {
    const out = await run({ arguments: '{"text": "hi"' });
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/^Error: arguments for "echo" are not valid JSON \(.+\); send a JSON object/);
  });

  it('answers arguments that break the schema with an error result naming the field', async () => {
    const out = await run({ arguments: '{"text": 5, "times": -1}' });
    expect(out.isError).toBe(true);
    expect(out.content).toContain('invalid arguments for "echo"');
    expect(out.content).toContain('text');
    expect(out.content).toContain('times');
  });

  it('turns a throwing tool into an error result instead of a failed activity', async () => {
    expect(await run({ name: 'boom', arguments: '{}' })).toEqual({
      content: 'Error: tool "boom" failed: disk on fire',
      isError: true,
    });
  });

  it('passes the tool’s metadata through', async () => {
    expect(await run({ name: 'sources', arguments: '{}' })).toEqual({
      content: 'found 2',
      isError: false,
      metadata: { sources: ['a', 'b'] },
    });
  });

  it('truncates output over maxOutputBytes with a marker, keeping the tool’s metadata and adding the truncation record', async () => {
    const out = await run({ name: 'big', arguments: '{"bytes": 10000}', maxOutputBytes: 1000 });
    expect(out.isError).toBe(false);
    expect(Buffer.byteLength(out.content)).toBeLessThanOrEqual(1000);
    expect(out.content).toMatch(/\n\[… output truncated: \d+ of 10000 bytes omitted …\]\n/);
    expect(out.metadata).toEqual({ exitCode: 0, truncated: true, originalBytes: 10000 });
  });

  it('does not truncate output of exactly maxOutputBytes', async () => {
    const out = await run({ name: 'big', arguments: '{"bytes": 1000}', maxOutputBytes: 1000 });
    expect(out).toEqual({ content: 'x'.repeat(1000), isError: false, metadata: { exitCode: 0 } });
  });

  it('refuses a workspace outside the workspace root', async () => {
    await expect(run({ workspace: '../..' })).rejects.toThrow(/outside the worker's workspace root/);
  });
});

describe('ToolRegistry quick tools', () => {
  const quick = (extra: Partial<ToolDefinition>) =>
    defineTool({ name: 'peek', description: 'peeks', parameters: z.object({}), execute: async () => 'ok', ...extra });

  it('gives a quick, idempotent tool a quick spec with a 10 s timeout by default', () => {
    expect(new ToolRegistry([quick({ idempotent: true, quick: true })]).spec('peek')).toMatchObject({
      quick: true,
      idempotent: true,
      timeoutMs: 10_000,
      maxAttempts: 3,
    });
    expect(new ToolRegistry([quick({ idempotent: true })]).spec('peek')).not.toHaveProperty('quick');
  });

  it('refuses a quick tool that is not idempotent, or whose timeout is over 30 s, saying why', () => {
    expect(() => new ToolRegistry([quick({ quick: true })])).toThrow('tool "peek" is quick but not idempotent');
    expect(() => new ToolRegistry([quick({ quick: true, idempotent: true, timeoutMs: 60_000 })])).toThrow(
      'a quick tool may take at most 30000 ms',
    );
  });
});

describe('ToolRegistry agent checks', () => {
  const named = (names: string[]) =>
    new ToolRegistry(
      names.map((name) => defineTool({ name, description: name, parameters: z.object({}), execute: async () => 'ok' })),
    );

  it('accepts agents, agent tools and sub-agents whose tools it has (exit_loop is the workflow’s own)', () => {
    const helper = defineAgent({ name: 'helper', tools: ['echo'] });
    const lead = defineAgent({ name: 'lead', tools: ['echo', 'exit_loop', asTool(helper, { description: 'Helps.' })] });
    expect(() => named(['echo']).checkAgents([lead, loopAgent({ name: 'loop', subAgents: [lead] })])).not.toThrow();
  });

  it('refuses an unknown tool anywhere in the tree, naming the agent, the tools it lacks and what it has', () => {
    const helper = defineAgent({ name: 'helper', tools: ['ecko', 'mcp:nowhere'] });
    const lead = defineAgent({ name: 'lead', tools: [asTool(helper, { description: 'Helps.' })] });
    expect(() => named(['echo']).checkAgents([sequentialAgent({ name: 'seq', subAgents: [lead] })])).toThrow(
      'agent "helper" names tools the worker does not have: "ecko", "mcp:nowhere"; this worker has echo',
    );
  });

  it('checks what an allowlist leaves of an agent tool, and leaves healthchecked agent tools to their healthcheck', () => {
    const helper = defineAgent({ name: 'helper', tools: ['echo', 'ecko'] });
    const allowlisted = defineAgent({
      name: 'a',
      tools: [asTool(helper, { description: 'Helps.', toolsAllowlist: ['echo'] })],
    });
    const healthchecked = defineAgent({
      name: 'b',
      tools: [asTool(helper, { description: 'Helps.', healthcheck: true })],
    });
    expect(() => named(['echo']).checkAgents([allowlisted, healthchecked])).not.toThrow();
  });
});

describe('resolveWorkspaceDir', () => {
  it('joins a relative workspace under the root', () => {
    expect(resolveWorkspaceDir('/srv/ws', 'runs/r1')).toBe('/srv/ws/runs/r1');
    expect(resolveWorkspaceDir('/srv/ws', '.')).toBe('/srv/ws');
  });

  it.each(['../..', '..', 'runs/../../etc', '/etc', '../ws-other'])('refuses %j', (relative) => {
    expect(() => resolveWorkspaceDir('/srv/ws', relative)).toThrow(/outside the worker's workspace root/);
  });

  it('allows dot-dot that stays inside the root', () => {
    expect(resolveWorkspaceDir('/srv/ws', 'runs/a/../b')).toBe('/srv/ws/runs/b');
  });
});

describe('truncateOutput', () => {
  const MARKER = /\n\[… output truncated: (\d+) of (\d+) bytes omitted …\]\n/;

  it('returns short content unchanged without metadata', () => {
    expect(truncateOutput('héllo', 100)).toEqual({ content: 'héllo' });
  });

  it.each([
    ['2-byte', 'é'],
    ['3-byte', '漢'],
    ['4-byte', '😀'],
    ['mixed', 'aé漢😀'],
  ])('never splits a %s character: head and tail are exact, valid pieces of the input', (_label, unit) => {
    const content = unit.repeat(400);
    const bytes = Buffer.byteLength(content);
    for (let maxBytes = 200; maxBytes <= 440; maxBytes += 1) {
      const out = truncateOutput(content, maxBytes);
      const m = MARKER.exec(out.content);
      expect(m).not.toBeNull();
      const [head, tail] = out.content.split(m![0]);
      expect(out.content).not.toContain('\uFFFD');
      expect(content.startsWith(head)).toBe(true);
      expect(content.endsWith(tail)).toBe(true);
      expect(Buffer.byteLength(head) + Buffer.byteLength(tail)).toBeLessThanOrEqual(maxBytes);
      expect(Number(m![1])).toBe(bytes - Buffer.byteLength(head) - Buffer.byteLength(tail));
      expect(Number(m![2])).toBe(bytes);
      expect(Buffer.byteLength(out.content)).toBeLessThanOrEqual(maxBytes + Buffer.byteLength(m![0]));
      expect(out.metadata).toEqual({ truncated: true, originalBytes: bytes });
    }
  });

  it('stays within maxBytes for ordinary limits', () => {
    const out = truncateOutput('y'.repeat(100_000), 4096);
    expect(Buffer.byteLength(out.content)).toBeLessThanOrEqual(4096);
  });

  it('keeps only the marker when maxBytes is tiny', () => {
    expect(truncateOutput('z'.repeat(500), 50).content).toBe('\n[… output truncated: 500 of 500 bytes omitted …]\n');
  });
});

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
