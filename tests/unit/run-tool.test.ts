// The tool activities in a MockActivityEnvironment: runTool (lookup, argument validation, errors as results,
// truncation, workspace confinement), the registry's quick tools and agent checks.
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { AgentHealth } from '../../activities/healthcheck';
import { createToolActivities, resolveWorkspaceDir, truncateOutput } from '../../activities/run-tool';
import { defineTool, type ToolDefinition } from '../../activities/tools/define-tool';
import { ToolRegistry } from '../../activities/tools/registry';
import { asTool, defineAgent, loopAgent, sequentialAgent } from '../../common';
import { newEnv, runIn, seen, registry, modelConfig } from '../helpers/activity-env';
import type { RunToolInput } from '../../common/contracts/tool-calls';

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
