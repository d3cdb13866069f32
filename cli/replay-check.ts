// `agio replay-check` (`npm run replay-check`): before a deploy, replays open runs against the workflow code about to
// be deployed and exits 1 naming every run that would not replay. Talks to Temporal with the worker's environment.
import { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { connectClient, dataConverterOption, loadEnv, payloadCodecFromEnv, temporalTarget } from '../config';
import { DEFAULT_CLOSED_SAMPLE, replayCheck } from '../worker/replay-check';
import type { ReplayCheckOptions, ReplayCheckReport, RunReplay } from '../worker/replay-check';

const USAGE = `usage: agio replay-check [--closed N] [--limit N] [--query Q] [--workflows PATH | --bundle FILE]

Replays the histories of open Agio runs (at most --limit N, default all) and of the N most recently closed ones
(--closed N, default ${DEFAULT_CLOSED_SAMPLE}) against the workflow code about to be deployed: this tree's workflows/,
a workflows module (--workflows) or a prebuilt bundle (--bundle). --query adds a visibility filter, e.g.
--query 'TaskQueue = "agio"'. Exit code: 0 every run replayed, 1 some run would not, 2 bad usage or Temporal error.`;

/** Where the command reads its environment and writes its lines (tests pass their own). */
export interface ReplayCheckIo {
  env?: NodeJS.ProcessEnv;
  out?: (line: string) => void;
  err?: (line: string) => void;
}

/** Runs the command with the arguments after `replay-check`; returns the exit code. */
export async function replayCheckCommand(argv: string[], io: ReplayCheckIo = {}): Promise<number> {
  const out = io.out ?? ((line: string) => console.log(line));
  const err = io.err ?? ((line: string) => console.error(line));
  let options: Omit<ReplayCheckOptions, 'client'>;
  try {
    options = parseOptions(argv);
  } catch (e) {
    err(`replay-check: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  quietRuntime();
  let report: ReplayCheckReport;
  try {
    const env = loadEnv(io.env);
    const temporal = temporalTarget(env);
    const codec = dataConverterOption(payloadCodecFromEnv(env));
    const connection = await connectClient(temporal).catch((e: Error) => {
      throw new Error(`cannot reach Temporal at ${temporal.address}: ${messageOf(e)}`);
    });
    try {
      // The codec decodes the histories' payloads, which the replay needs as the worker saw them.
      const client = new Client({ connection, namespace: temporal.namespace, ...codec });
      report = await replayCheck({ ...options, client });
    } finally {
      await connection.close();
    }
  } catch (e) {
    err(`replay-check: ${messageOf(e as Error)}`);
    return 2;
  }
  for (const line of reportLines(report)) out(line);
  return report.failed ? 1 : 0;
}

/** The client's errors say what failed ("Failed to list workflows"); their cause says why. */
function messageOf(error: Error): string {
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  const message = cause && !error.message.includes(cause) ? `${error.message}: ${cause}` : error.message;
  return /binary\/encrypted/.test(message)
    ? `${message} (the runs' payloads are encrypted: give this command the workers' AGIO_CODEC_KEYS)`
    : message;
}

function parseOptions(argv: string[]): Omit<ReplayCheckOptions, 'client'> {
  const { values } = parseArgs({
    args: argv,
    options: {
      closed: { type: 'string' },
      limit: { type: 'string' },
      query: { type: 'string' },
      workflows: { type: 'string' },
      bundle: { type: 'string' },
    },
  });
  if (values.workflows && values.bundle) throw new Error('give --workflows or --bundle, not both');
  return {
    ...(values.closed !== undefined ? { closed: count('--closed', values.closed) } : {}),
    ...(values.limit !== undefined ? { limit: count('--limit', values.limit) } : {}),
    ...(values.query ? { query: values.query } : {}),
    ...(values.workflows ? { workflows: { workflowsPath: workflowsModule(values.workflows) } } : {}),
    ...(values.bundle ? { workflows: { bundlePath: bundleFile(values.bundle) } } : {}),
  };
}

function count(option: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new Error(`${option} takes a whole number, not "${value}"`);
  return Number(value);
}

/** Checked here, before connecting, so a typo is a usage error and not a bundler stack trace. */
function workflowsModule(value: string): string {
  try {
    return require.resolve(path.resolve(value));
  } catch {
    throw new Error(`--workflows: no module at ${value}`);
  }
}

function bundleFile(value: string): string {
  const file = path.resolve(value);
  if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) throw new Error(`--bundle: no such file ${value}`);
  return file;
}

/**
 * The report prints every failure in full, so the SDK's own logs of the same failures (core's "Failing workflow
 * task" warnings) would only say it twice. Another runtime may be installed already (in tests): keep it.
 */
function quietRuntime(): void {
  try {
    const filter = { core: 'ERROR', other: 'ERROR' } as const;
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter } } });
  } catch {
    // installed before, e.g. by a test's worker
  }
}

const LABELS: Record<RunReplay['outcome'], string> = { ok: 'ok', nondeterminism: 'NONDETERMINISM', error: 'error' };

/** The command's output: a header, one line per run, each failure in detail, and the summary line. */
export function reportLines(report: ReplayCheckReport): string[] {
  const { runs, code } = report;
  const open = runs.filter((r) => r.status === 'running').length;
  const counts = `${runs.length} runs (${open} open, ${runs.length - open} closed)`;
  const lines = [`replay-check: ${counts} against ${code.source} (build ${code.buildId})`];
  for (const run of runs) {
    const v = run.version;
    const version = v ? `  on ${v.deploymentName}.${v.buildId} (${v.behavior})` : '';
    const label = LABELS[run.outcome].padEnd(14);
    lines.push(`${label} ${run.runId}  ${run.workflowType}  ${run.status}${version}`);
  }
  for (const run of runs.filter((r) => r.outcome !== 'ok')) {
    lines.push('', `${run.runId} (Temporal run ${run.temporalRunId}) would not replay: ${where(run)}`);
    lines.push(`  ${run.message ?? ''}`);
  }
  if (report.failed) lines.push('');
  lines.push(`replay-check: ${runs.length} runs replayed, ${report.failed} failed`);
  return lines;
}

function where(run: RunReplay): string {
  const d = run.divergence;
  if (!d && run.outcome === 'nondeterminism') return 'first differing event not known; see what the SDK saw below';
  if (!d) return 'an error other than nondeterminism';
  const completedAt = d.workflowTaskCompletedEventId;
  const task = completedAt ? `, in the commands of the workflow task completed at event ${completedAt}` : '';
  const how = d.foundBy === 'message' ? 'named by the SDK' : 'found by replaying shorter prefixes of the history';
  return `first differing event ${d.eventId} ${d.eventType}${task} (${how})`;
}
