// The pure parts of MCP tool sources: the server config schema and its errors, tool names and the allowlist,
// idempotency from annotations, arguments checked against the server's JSON Schema, result conversion, and
// `mcp:<server>` groups resolved by resolveTools and called through runTool (with a stand-in for the server).
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentHealth } from '../../activities/healthcheck';
import { createToolActivities } from '../../activities/run-tool';
import { jsonSchemaArguments } from '../../activities/tools/mcp/arguments';
import { McpServerConfig } from '../../activities/tools/mcp/config';
import { base64Bytes, toolOutputOf } from '../../activities/tools/mcp/results';
import { parseMcpServers } from '../../activities/tools/mcp/servers';
import { isIdempotent, mcpToolDefinition, selectTools } from '../../activities/tools/mcp/tools';
import { ToolRegistry } from '../../activities/tools/registry';
import { z } from 'zod';
import type { RunToolInput, RunToolOutput } from '../../common/contracts/tool-calls';

const issues = (value: unknown) =>
  (McpServerConfig.safeParse(value).error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`);
const stdio = (extra: object = {}) =>
  McpServerConfig.parse({ name: 'srv', transport: 'stdio', command: 'srv', ...extra });
const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({ name, inputSchema: { type: 'object' }, ...extra });

describe('McpServerConfig', () => {
  it('fills in defaults for stdio and http servers', () => {
    expect(stdio()).toEqual({ name: 'srv', transport: 'stdio', command: 'srv', args: [], lifetime: 'worker' });
    expect(
      McpServerConfig.parse({
        name: 'web',
        transport: 'http',
        url: 'https://example.com/mcp',
        headers: { Authorization: 'Bearer x' },
      }),
    ).toEqual({
      name: 'web',
      transport: 'http',
      url: 'https://example.com/mcp',
      headers: { Authorization: 'Bearer x' },
      lifetime: 'worker',
    });
  });

  it('names the field of every mistake, unknown keys included', () => {
    expect(issues({ name: 'a b', transport: 'stdio', command: 'x' })).toEqual([
      'name: MCP server names are 1-32 letters, digits, _ or -',
    ]);
    expect(issues({ name: 'x'.repeat(33), transport: 'stdio', command: 'x' })).toHaveLength(1);
    expect(issues({ name: 'a', transport: 'smoke' })).toEqual(["transport: transport must be 'stdio' or 'http'"]);
    expect(issues({ name: 'a', transport: 'stdio' })).toEqual([expect.stringMatching(/^command: /)]);
    expect(issues({ name: 'a', transport: 'stdio', command: 'x', comand: 'y' })).toEqual([
      ': Unrecognized key: "comand"',
    ]);
    expect(issues({ name: 'a', transport: 'http', url: 'ftp://example.com' })).toEqual([
      'url: url must be an http:// or https:// URL',
    ]);
    expect(issues({ name: 'a', transport: 'http', url: 'https://x', command: 'y' })).toEqual([
      ': Unrecognized key: "command"',
    ]);
    expect(issues({ name: 'a', transport: 'stdio', command: 'x', lifetime: 'forever' })).toEqual([
      expect.stringMatching(/^lifetime: /),
    ]);
    expect(issues({ name: 'a', transport: 'stdio', command: 'x', env: { A: 1 } })).toEqual([
      expect.stringMatching(/^env\.A: .*expected string/),
    ]);
  });

  it('refuses {workspace} and idleTimeoutMs on a server shared by the whole worker', () => {
    expect(issues({ name: 'a', transport: 'stdio', command: 'x', args: ['--root', '{workspace}'] })).toEqual([
      expect.stringMatching(/^args\.1: \{workspace\} needs `lifetime: run`/),
    ]);
    expect(issues({ name: 'a', transport: 'stdio', command: 'x', env: { ROOT: '{workspace}/x' } })).toEqual([
      expect.stringMatching(/^env\.ROOT: /),
    ]);
    expect(issues({ name: 'a', transport: 'stdio', command: 'x', idleTimeoutMs: 10 })).toEqual([
      'idleTimeoutMs: idleTimeoutMs applies to `lifetime: run` only',
    ]);
    expect(
      issues({
        name: 'a',
        transport: 'stdio',
        command: 'x',
        args: ['{workspace}'],
        cwd: '{workspace}',
        lifetime: 'run',
        idleTimeoutMs: 10,
      }),
    ).toEqual([]);
  });

  it('says which entry of a list is wrong, and refuses a name declared twice', () => {
    expect(() =>
      parseMcpServers([
        { name: 'ok', transport: 'stdio', command: 'x' },
        { name: 'bad', transport: 'http', url: 'nope' } as never,
      ]),
    ).toThrow(/^mcpServers\[1\] \("bad"\) is not valid:\n✖ url must be/);
    expect(() => parseMcpServers([stdio(), stdio()])).toThrow('MCP server "srv" is declared twice');
  });
});

describe('MCP tools as worker tools', () => {
  it('names tools <server>__<tool>, keeps the server order, and applies the allowlist', () => {
    const listed = [tool('echo'), tool('get-sum'), tool('add')];
    expect(selectTools(stdio(), listed).map((t) => t.name)).toEqual(['echo', 'get-sum', 'add']);
    expect(selectTools(stdio({ tools: ['add', 'echo'] }), listed).map((t) => t.name)).toEqual(['echo', 'add']);
    expect(mcpToolDefinition(stdio(), listed[1], jest.fn()).name).toBe('srv__get-sum');
  });

  it('fails clearly for an allowlisted tool the server lacks and for a tool whose name cannot be offered', () => {
    expect(() => selectTools(stdio({ tools: ['echo', 'ecko'] }), [tool('echo')])).toThrow(
      'MCP server "srv" has no tool "ecko" (its tools: echo)',
    );
    expect(() => selectTools(stdio(), [tool('files.read')])).toThrow(
      /MCP server "srv" has a tool "files.read" that cannot be offered as "srv__files.read".*allowlist/,
    );
    expect(() => selectTools(stdio(), [tool('x'.repeat(60))])).toThrow(/cannot be offered/);
    expect(selectTools(stdio({ tools: ['ok'] }), [tool('files.read'), tool('ok')]).map((t) => t.name)).toEqual(['ok']);
  });

  it('takes idempotency from the annotations unless the config says otherwise', () => {
    expect(isIdempotent(stdio(), tool('a'))).toBe(false);
    expect(isIdempotent(stdio(), tool('a', { annotations: { idempotentHint: true } }))).toBe(true);
    expect(isIdempotent(stdio(), tool('a', { annotations: { readOnlyHint: true } }))).toBe(true);
    expect(isIdempotent(stdio({ idempotent: false }), tool('a', { annotations: { readOnlyHint: true } }))).toBe(false);
    expect(isIdempotent(stdio({ idempotent: true }), tool('a'))).toBe(true);
    const registry = new ToolRegistry([
      mcpToolDefinition(stdio(), tool('write'), jest.fn()),
      mcpToolDefinition(stdio(), tool('read', { annotations: { readOnlyHint: true } }), jest.fn()),
      mcpToolDefinition(stdio({ name: 'slow', timeoutMs: 5000, maxAttempts: 7 }), tool('op'), jest.fn()),
    ]);
    expect(registry.spec('srv__write')).toMatchObject({ idempotent: false, maxAttempts: 1, timeoutMs: 60_000 });
    expect(registry.spec('srv__read')).toMatchObject({ idempotent: true, maxAttempts: 3 });
    expect(registry.spec('slow__op')).toMatchObject({ idempotent: false, maxAttempts: 7, timeoutMs: 5000 });
  });

  it("offers the server's own JSON Schema to the model and checks arguments against it (draft-07 and 2020-12)", () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { a: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['a'],
      additionalProperties: false,
    };
    const def = mcpToolDefinition(
      stdio(),
      tool('sum', { inputSchema: schema as Tool['inputSchema'], description: 'Adds.' }),
      jest.fn(),
    );
    expect(new ToolRegistry([def]).openAiTool('srv__sum')).toEqual({
      type: 'function',
      function: { name: 'srv__sum', description: 'Adds.', parameters: schema },
    });
    expect(def.parameters.safeParse({ a: 1, tags: ['x'] })).toEqual({ success: true, data: { a: 1, tags: ['x'] } });
    expect(z.prettifyError(def.parameters.safeParse({ tags: ['x', 2], b: 1 }).error!)).toBe(
      '✖ required property is missing\n  → at a\n✖ unknown property\n  → at b\n✖ must be string\n  → at tags[1]',
    );
    // Without $schema a schema is 2020-12 (MCP's default): prefixItems applies.
    const modern = jsonSchemaArguments({
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } },
    });
    expect(modern.safeParse({ pair: ['a', 1] }).success).toBe(true);
    expect(z.prettifyError(modern.safeParse({ pair: ['a', 'b'] }).error!)).toBe('✖ must be number\n  → at pair[1]');
    expect(() =>
      mcpToolDefinition(
        stdio(),
        tool('bad', {
          inputSchema: { type: 'object', properties: { a: { $ref: '#/nowhere' } } } as Tool['inputSchema'],
        }),
        jest.fn(),
      ),
    ).toThrow(/MCP server "srv": the input schema of its tool "bad" cannot be used/);
  });
});

describe('MCP results', () => {
  it('joins text parts and summarises every other part by type and size', () => {
    const png = Buffer.alloc(70, 1).toString('base64');
    const out = toolOutputOf({
      content: [
        { type: 'text', text: 'first' },
        { type: 'image', data: png, mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
        { type: 'resource', resource: { uri: 'file:///b.txt', text: 'héllo' } },
        { type: 'resource', resource: { uri: 'file:///c.bin', blob: 'AAE=', mimeType: 'application/octet-stream' } },
        { type: 'text', text: 'last' },
      ],
    });
    expect(out).toEqual({
      content: [
        'first',
        '[image: image/png, 70 bytes]',
        '[audio: audio/wav, 3 bytes]',
        '[resource link: file:///a.txt (text/plain) "a.txt"]',
        '[resource: file:///b.txt]\nhéllo',
        '[resource: file:///c.bin (application/octet-stream), 2 bytes]',
        'last',
      ].join('\n'),
    });
    expect([base64Bytes(''), base64Bytes('AA=='), base64Bytes('AAA='), base64Bytes('AAAA')]).toEqual([0, 1, 2, 3]);
  });

  it('turns isError into an error result and keeps structured content as metadata', () => {
    expect(toolOutputOf({ content: [{ type: 'text', text: 'disk full' }], isError: true })).toEqual({
      content: 'Error: disk full',
      isError: true,
    });
    expect(toolOutputOf({ content: [{ type: 'text', text: 'Error: no such file' }], isError: true })).toEqual({
      content: 'Error: no such file',
      isError: true,
    });
    expect(toolOutputOf({ content: [], isError: true })).toEqual({
      content: 'Error: the tool reported an error',
      isError: true,
    });
    expect(toolOutputOf({ content: [{ type: 'text', text: '{"t":36}' }], structuredContent: { t: 36 } })).toEqual({
      content: '{"t":36}',
      metadata: { structuredContent: { t: 36 } },
    });
    expect(toolOutputOf({ toolResult: { legacy: true } })).toEqual({ content: '{"legacy":true}' });
  });
});

describe('mcp:<server> in resolveTools and MCP tools in runTool', () => {
  const call = jest.fn(async (name: string, args: Record<string, unknown>) => ({
    content: `${name} got ${JSON.stringify(args)}`,
  }));
  const server = stdio({ name: 'everything' });
  const registry = new ToolRegistry([
    mcpToolDefinition(
      server,
      tool('echo', {
        inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
      }),
      call,
    ),
    mcpToolDefinition(server, tool('get-sum'), call),
  ]).registerGroup('mcp:everything', ['everything__echo', 'everything__get-sum']);
  const model = { baseURL: 'http://127.0.0.1:1/v1', apiKey: 'x', defaultModel: 'm' };
  let root: string;
  let activities: ReturnType<typeof createToolActivities>;
  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'agio-mcp-unit-'));
    activities = createToolActivities(registry, root, new AgentHealth(registry, model, () => undefined));
  });
  afterAll(() => fs.rm(root, { recursive: true, force: true }));

  it('expands a server group into its tools, once each', async () => {
    const out = await activities.resolveTools({ names: ['mcp:everything', 'everything__echo'] });
    expect(out.specs.map((s) => s.name)).toEqual(['everything__echo', 'everything__get-sum']);
  });

  it('fails, without retries, for an unknown server group as for an unknown tool, naming the agent and what the worker has', async () => {
    const resolving = activities.resolveTools({ agent: 'scout', names: ['mcp:everything', 'mcp:nowhere', 'nope'] });
    await expect(resolving).rejects.toMatchObject({
      type: 'UnknownTool',
      nonRetryable: true,
      message:
        'agent "scout" names tools the worker does not have: "mcp:nowhere", "nope"; this worker has everything__echo, everything__get-sum and the groups mcp:everything',
    });
  });

  it('refuses a group that names unregistered tools', () => {
    expect(() => new ToolRegistry().registerGroup('mcp:x', ['x__y'])).toThrow(
      'group "mcp:x" names unregistered tools: x__y',
    );
  });

  it('passes valid arguments unchanged to the server and answers bad ones with an error result without calling it', async () => {
    const env = new MockActivityEnvironment({}, { logger: new DefaultLogger('ERROR', () => undefined) });
    const input = (args: unknown): RunToolInput => ({
      runId: 'r',
      toolCallId: 'c',
      name: 'everything__echo',
      arguments: JSON.stringify(args),
      workspace: 'runs/r',
      maxOutputBytes: 10_000,
    });
    const ok = (await env.run(activities.runTool, input({ message: 'hi', extra: [1] }))) as RunToolOutput;
    expect(ok).toEqual({ content: 'echo got {"message":"hi","extra":[1]}', isError: false });
    call.mockClear();
    const bad = (await env.run(activities.runTool, input({ message: 5 }))) as RunToolOutput;
    expect(bad).toEqual({
      content: 'Error: invalid arguments for "everything__echo":\n✖ must be string\n  → at message',
      isError: true,
    });
    expect(call).not.toHaveBeenCalled();
  });
});
