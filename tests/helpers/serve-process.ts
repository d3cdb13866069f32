// `agio serve` as a user runs it (`node --import tsx cli/main.ts serve`, what scripts/serve runs) in its own process,
// with a data directory and port of its own and none of the developer's Temporal, model or Mongo settings.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { testEnv } from './test-env';

const REPO_ROOT = path.resolve(__dirname, '../..');

/** The real curl binary, as the README uses it (silent, 60 s at most); returns what it printed. */
export const curl = (...args: string[]): string =>
  execFileSync('curl', ['-s', '--max-time', '60', ...args], { encoding: 'utf8' });
/** POST /runs with curl as the dev token (`body`: agent, input, …); what serve answered. */
export const curlStartRun = (url: string, body: Record<string, unknown>): { runId: string } =>
  JSON.parse(
    curl(
      '-X',
      'POST',
      `${url}/runs`,
      '-H',
      DEV_TOKEN_HEADER,
      '-H',
      'content-type: application/json',
      '-d',
      JSON.stringify(body),
    ),
  ) as { runId: string };
/**
 * The token {@link startServe} gives serve in AGIO_TOKENS (tenant `default`) unless a test leaves AGIO_TOKENS unset.
 */
export const DEV_TOKEN = 'dev-token';
/** Its Authorization header. */
export const DEV_TOKEN_HEADER = `Authorization: Bearer ${DEV_TOKEN}`;
const START_TIMEOUT_MS = 180_000;

/** A started serve; `output()` is everything it printed so far. */
export interface ServeProcess {
  child: ChildProcess;
  /** The bridge's URL as serve printed it (empty when it stopped before, e.g. on a bad agents file). */
  url: string;
  /** The token serve generated and printed (AGIO_TOKENS unset), else {@link DEV_TOKEN}. */
  token: string;
  output(): string;
  /** Settles with the exit code once the process has exited. */
  exited: Promise<number | null>;
}

/** What else a serve gets: arguments after `serve` (e.g. `--agents FILE`) and environment variables. */
export interface ServeOptions {
  until?: string;
  /** The agio command to run instead of `serve` (e.g. `dev`), started the same way. */
  command?: string;
  args?: string[];
  /**
   * Set on top of the test's own; a key set to undefined is left out (AGIO_TOKENS: undefined, as a user starts serve).
   */
  env?: NodeJS.ProcessEnv;
}

/**
 * Spawns serve on `dataDir` and `port`; resolves once it prints `agio is running` (or `until`, when given). Port 0 (the
 * default) lets the bridge take a free port when it listens: a port chosen here beforehand can be taken meanwhile by
 * one of the servers serve starts first (a Temporal server binds nine), and the test would talk to it instead.
 */
export async function startServe(dataDir: string, port = 0, opts: ServeOptions = {}): Promise<ServeProcess> {
  const until = opts.until ?? 'agio is running';
  // No Web UI: the tests do not use it, and its first start would build it with Go beside the suite.
  const env: NodeJS.ProcessEnv = { ...process.env, AGIO_DATA_DIR: dataDir, PORT: String(port), AGIO_WEB_UI: 'false' };
  for (const key of [
    'TEMPORAL_ADDRESS',
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
    'MONGODB_URI',
    'AGIO_TOKENS',
    'AGIO_AGENTS',
  ])
    delete env[key];
  // serve has no fixed token: the tests give it one (AGIO_TOKENS), unless one leaves it to generate its own. Each
  // data directory polls a task queue of its own (a serve started again on it finds its runs): two serves that end up
  // on one Temporal server never run each other's runs.
  const taskQueue = `serve-${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16)}`;
  // Agio's workflows bundled once by the global setup, not by webpack in every serve (a test may set its own).
  const bundle = { AGIO_WORKFLOW_BUNDLE: testEnv('agioWorkflowBundle') };
  Object.assign(env, { AGIO_TOKENS: `${DEV_TOKEN}:default`, AGIO_TASK_QUEUE: taskQueue }, bundle, opts.env);
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  // As scripts/serve starts it: one process, so `child.pid` is serve's own.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'cli/main.ts', opts.command ?? 'serve', ...(opts.args ?? [])],
    {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!output.includes(until)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not print "${until}":\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const url = /bridge\s+(http:\/\/\S+)/.exec(output)?.[1] ?? '';
  const token = /Authorization: Bearer (agio_[\w-]+)\)/.exec(output)?.[1] ?? DEV_TOKEN;
  return { child, url, token, output: () => output, exited };
}
