// Test helper for tools: a ToolContext over a fresh temporary workspace, and a way to call a tool the
// way the runner does (arguments validated by the tool's schema, string results normalised).
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ToolContext, ToolDefinition, ToolOutput } from '../../activities/tools/define-tool';
import { detectSandbox } from '../../activities/sandbox/detect';
import type { Sandbox } from '../../activities/sandbox/sandbox';

let sandbox: Promise<Sandbox> | undefined;
/** The sandbox a worker on this machine would detect (probed once per test file). */
export function testSandbox(): Promise<Sandbox> {
  sandbox ??= detectSandbox({ workspaceRoot: os.tmpdir() });
  return sandbox;
}

/** A ToolContext plus the handles a test needs around it. */
export interface TestToolContext {
  ctx: ToolContext;
  /** Real path of the temporary workspace. */
  workspace: string;
  /** Aborts `ctx.signal`. */
  abort: AbortController;
  /** Number of `ctx.heartbeat()` calls so far. */
  heartbeats: () => number;
  /** Removes the workspace (and anything else made with `tmpDir`). */
  cleanup: () => Promise<void>;
  /** Makes another temporary directory (e.g. "outside" the workspace), removed by `cleanup`. */
  tmpDir: (prefix?: string) => Promise<string>;
}

/** Makes a ToolContext over a new temporary workspace directory. */
export async function makeToolContext(overrides: Partial<ToolContext> = {}): Promise<TestToolContext> {
  const dirs: string[] = [];
  const tmpDir = async (prefix = 'agio-tool-') => {
    const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
    dirs.push(dir);
    return dir;
  };
  const workspace = await tmpDir('agio-ws-');
  const abort = new AbortController();
  let beats = 0;
  const ctx: ToolContext = {
    workspace,
    signal: abort.signal,
    heartbeat: () => {
      beats++;
    },
    idempotencyKey: 'test-idempotency-key',
    runId: 'test-run',
    toolCallId: 'test-call',
    sandbox: await testSandbox(),
    ...overrides,
  };
  const cleanup = async () => {
    await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
  };
  return { ctx, workspace, abort, heartbeats: () => beats, cleanup, tmpDir };
}

/** Validates `args` with the tool's schema, runs it, and returns its output as a ToolOutput. */
export async function callTool(tool: ToolDefinition, args: unknown, ctx: ToolContext): Promise<ToolOutput> {
  const out = await tool.execute(tool.parameters.parse(args), ctx);
  return typeof out === 'string' ? { content: out } : out;
}
