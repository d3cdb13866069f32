// The pre-deploy replay check: replays the histories of open (and some recently closed) runs against the workflow
// code about to be deployed, so a change that would break running agents fails here and not in production.
import type { Client, HistoryAndWorkflowId, WorkflowExecutionInfo } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { Worker, type History } from '@temporalio/worker';
import fs from 'node:fs';
import { WorkflowType, runStatusOf, type RunStatus } from '../common';
import { runVersionOf, type RunVersion } from '../client/run-version';
import { buildIdOf } from './versioning';
import { AGIO_WORKFLOWS, bundleWorkflows } from './workflow-bundle-options';

/** Options of {@link replayCheck}. */
export interface ReplayCheckOptions {
  client: Client;
  /** The code to check: a workflows module (bundled now) or a prebuilt bundle file; default this tree's workflows/. */
  workflows?: { workflowsPath: string } | { bundlePath: string };
  /** An extra visibility filter, ANDed with the status and workflow-type filters. */
  query?: string;
  /** At most this many open runs (default: all). */
  limit?: number;
  /** How many recently closed runs to replay too (default {@link DEFAULT_CLOSED_SAMPLE}). */
  closed?: number;
}

/** Recently closed runs replayed by default: a cheap sample of the paths finished runs took. */
export const DEFAULT_CLOSED_SAMPLE = 20;

/** The first history event the new code disagrees with, as far as the check could tell. */
export interface DivergingEvent {
  eventId: number;
  /** As Temporal's core names it: `MarkerRecorded`, `ActivityTaskScheduled`, … */
  eventType: string;
  /** The WorkflowTaskCompleted event whose commands the new code does not reproduce. */
  workflowTaskCompletedEventId?: number;
  /** `message`: named by the SDK's error; `search`: found by replaying ever longer prefixes of the history. */
  foundBy: 'message' | 'search';
}

/** The result of replaying one run. */
export interface RunReplay {
  /** Agio's run id (the workflow id). */
  runId: string;
  temporalRunId: string;
  workflowType: string;
  /** Where the run is: running, completed, failed, … (see RunStatus). */
  status: RunStatus;
  /** The worker version the run is on (informative; absent for runs of unversioned workers). */
  version?: RunVersion;
  outcome: 'ok' | 'nondeterminism' | 'error';
  /** The replay error's full message (when not ok). */
  message?: string;
  divergence?: DivergingEvent;
}

/** What {@link replayCheck} found: pure data, for the CLI or a deploy pipeline to print. */
export interface ReplayCheckReport {
  /** The code checked: where it came from and the build id a worker running it would poll as. */
  code: { source: string; buildId: string };
  runs: RunReplay[];
  failed: number;
}

/** Replays the namespace's open Agio runs (and a sample of closed ones) against the given workflow code. */
export async function replayCheck(opts: ReplayCheckOptions): Promise<ReplayCheckReport> {
  // Bundling is CPU, listing and fetching are network: both at once.
  const [code, infos] = await Promise.all([workflowCode(opts.workflows), listRuns(opts)]);
  // Described too: the visibility list does not carry a run's worker version on every server.
  const fetched = await mapLimit(infos, 5, (info) => {
    const handle = opts.client.workflow.getHandle(info.workflowId, info.runId);
    return Promise.all([handle.fetchHistory(), handle.describe()]);
  });
  const histories = fetched.map(([history]) => history);
  const replays = infos.map((info, i) => ({ workflowId: info.workflowId, history: histories[i] }));
  // The histories' payloads as the client fetched them, encrypted when a codec is on: the replay decodes them with the
  // client's codecs, as the worker did.
  const dataConverter: DataConverter = {
    payloadCodecs: opts.client.workflow.options.loadedDataConverter.payloadCodecs,
  };
  const errors = await replayAll(code.code, replays, dataConverter);
  const runs = infos.map((info, i) => runReplay(info, runVersionOf(fetched[i][1]), errors[i]));
  await locateDivergences(code.code, runs, histories, dataConverter);
  const failed = runs.filter((r) => r.outcome !== 'ok').length;
  return { code: { source: code.source, buildId: buildIdOf(code.code) }, runs, failed };
}

async function workflowCode(workflows: ReplayCheckOptions['workflows']): Promise<{ code: string; source: string }> {
  if (workflows && 'bundlePath' in workflows) {
    return { code: await fs.promises.readFile(workflows.bundlePath, 'utf8'), source: workflows.bundlePath };
  }
  const workflowsPath = workflows?.workflowsPath ?? AGIO_WORKFLOWS;
  return { code: await bundleWorkflows(workflowsPath), source: workflowsPath };
}

/** Open runs first (the ones a deploy can break), then the most recently closed. */
async function listRuns(opts: ReplayCheckOptions): Promise<WorkflowExecutionInfo[]> {
  const types = Object.values(WorkflowType)
    .map((t) => `'${t}'`)
    .join(', ');
  const list = (status: string, max: number) => {
    const query = [status, `WorkflowType IN (${types})`, ...(opts.query ? [`(${opts.query})`] : [])].join(' AND ');
    return take(opts.client.workflow.list({ query }), max);
  };
  const open = await list(`ExecutionStatus = 'Running'`, opts.limit ?? Infinity);
  const closed = await list(`ExecutionStatus != 'Running'`, opts.closed ?? DEFAULT_CLOSED_SAMPLE);
  return [...open, ...closed];
}

async function take<T>(items: AsyncIterable<T>, max: number): Promise<T[]> {
  const out: T[] = [];
  if (max <= 0) return out;
  for await (const item of items) {
    out.push(item);
    if (out.length >= max) break;
  }
  return out;
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

/**
 * Replays every history with one replay worker; returns each one's error (undefined: replayed), in input order. The
 * SDK replays one history at a time and yields in order, so results match by position: prefixes of one run share
 * its workflow and run id.
 */
async function replayAll(
  code: string,
  histories: HistoryAndWorkflowId[],
  dataConverter: DataConverter,
): Promise<(Error | undefined)[]> {
  if (histories.length === 0) return [];
  const errors: (Error | undefined)[] = [];
  const options = { workflowBundle: { code }, replayName: 'agio-replay-check', dataConverter };
  const results = Worker.runReplayHistories(options, histories);
  for await (const result of results) errors.push(result.error);
  // A missing result would read as "replayed fine": fail loudly instead.
  if (errors.length !== histories.length) {
    throw new Error(`replay returned ${errors.length} results for ${histories.length} histories`);
  }
  return errors;
}

function runReplay(info: WorkflowExecutionInfo, version: RunVersion | undefined, error: Error | undefined): RunReplay {
  const base = {
    runId: info.workflowId,
    temporalRunId: info.runId,
    workflowType: info.type,
    status: runStatusOf(info.status.name) ?? 'running',
  };
  if (version) Object.assign(base, { version });
  if (!error) return { ...base, outcome: 'ok' };
  // Compared by name: the error class lives in the SDK's workflow package, which may be loaded more than once.
  const outcome = error.name === 'DeterminismViolationError' ? 'nondeterminism' : 'error';
  return { ...base, outcome, message: `${error.name}: ${error.message}` };
}

type HistoryEvent = NonNullable<History['events']>[number];
type Int64 = number | { toNumber(): number } | null | undefined;
const num = (v: Int64): number => (v == null ? 0 : typeof v === 'number' ? v : v.toNumber());

/** The event's type as core names it in its messages, read off the one `…EventAttributes` field that is set. */
function eventTypeOf(event: HistoryEvent): string {
  const fields = event as unknown as Record<string, unknown>;
  const key = Object.keys(fields).find((k) => k.endsWith('EventAttributes') && fields[k] != null);
  return key ? key[0].toUpperCase() + key.slice(1, -'EventAttributes'.length) : `event type ${String(event.eventType)}`;
}

/** Index of the last WorkflowTaskCompleted event before index `end`; -1 when there is none. */
function lastWorkflowTaskCompletedBefore(events: HistoryEvent[], end: number): number {
  for (let i = end - 1; i >= 0; i--) if (events[i].workflowTaskCompletedEventAttributes != null) return i;
  return -1;
}

/**
 * Fills in `divergence` of every nondeterministic run: from the error message when core names the event
 * (`HistoryEvent(id: 5, MarkerRecorded)`), otherwise by searching for the shortest failing prefix of its history.
 */
async function locateDivergences(
  code: string,
  runs: RunReplay[],
  histories: History[],
  dataConverter: DataConverter,
): Promise<void> {
  const toSearch: number[] = [];
  runs.forEach((run, i) => {
    if (run.outcome !== 'nondeterminism') return;
    const events = histories[i].events ?? [];
    const named = /HistoryEvent\(id: (\d+)|event_id: (\d+)/.exec(run.message ?? '');
    const index = named ? events.findIndex((e) => num(e.eventId) === Number(named[1] ?? named[2])) : -1;
    if (index < 0) {
      toSearch.push(i);
      return;
    }
    const completed = lastWorkflowTaskCompletedBefore(events, index);
    run.divergence = { ...eventAt(events, index), foundBy: 'message' };
    if (completed >= 0) run.divergence.workflowTaskCompletedEventId = num(events[completed].eventId);
  });
  const targets = toSearch.map((i) => ({ workflowId: runs[i].runId, events: histories[i].events ?? [] }));
  const found = await shortestFailingPrefixes(code, targets, dataConverter);
  toSearch.forEach((runIndex, j) => {
    const events = histories[runIndex].events ?? [];
    const end = found[j];
    const completedIndex = lastWorkflowTaskCompletedBefore(events, end);
    if (completedIndex < 0) return;
    // The new code does not reproduce that workflow task's commands: the first event they recorded is where it differs.
    const first = Math.min(completedIndex + 1, end - 1);
    const workflowTaskCompletedEventId = num(events[completedIndex].eventId);
    runs[runIndex].divergence = { ...eventAt(events, first), workflowTaskCompletedEventId, foundBy: 'search' };
  });
}

function eventAt(events: HistoryEvent[], index: number): { eventId: number; eventType: string } {
  return { eventId: num(events[index].eventId), eventType: eventTypeOf(events[index]) };
}

interface PrefixTarget {
  workflowId: string;
  events: HistoryEvent[];
}

/** Probes per run and round: a round costs one replay worker, so the search narrows by this factor each time. */
const PROBES_PER_ROUND = 8;

/**
 * For each history known to fail, the length of its shortest prefix that fails too. Prefixes end where a workflow
 * task is about to be scheduled, the shape of any open run's history, so core checks every completed task's commands
 * and runs nothing new. Failing is monotonic in the prefix length, so a k-ary search over all runs at once needs
 * log8(workflow tasks) rounds of one replay call each.
 */
async function shortestFailingPrefixes(
  code: string,
  targets: PrefixTarget[],
  dataConverter: DataConverter,
): Promise<number[]> {
  const ends = targets.map(({ events }) => [
    ...events.flatMap((e, i) => (i > 1 && e.workflowTaskScheduledEventAttributes != null ? [i] : [])),
    events.length, // the whole history: known to fail
  ]);
  const lo = targets.map(() => -1); // index into ends: the longest prefix known to replay (none yet)
  const hi = ends.map((e) => e.length - 1); // the shortest prefix known to fail
  for (;;) {
    const probes = targets.flatMap((_, t) => probesBetween(lo[t], hi[t]).map((p) => ({ t, p })));
    if (probes.length === 0) break;
    const prefix = (t: number, p: number) => ({ events: targets[t].events.slice(0, ends[t][p]) });
    const errors = await replayAll(
      code,
      probes.map(({ t, p }) => ({ workflowId: targets[t].workflowId, history: prefix(t, p) })),
      dataConverter,
    );
    probes.forEach(({ t, p }, i) => {
      if (errors[i] && p < hi[t]) hi[t] = p;
      if (!errors[i] && p > lo[t]) lo[t] = p;
    });
  }
  return targets.map((_, t) => ends[t][hi[t]]);
}

/** Up to {@link PROBES_PER_ROUND} evenly spread indexes strictly between `lo` and `hi`. */
function probesBetween(lo: number, hi: number): number[] {
  const gap = hi - lo - 1;
  if (gap <= 0) return [];
  const count = Math.min(gap, PROBES_PER_ROUND);
  return Array.from({ length: count }, (_, k) => lo + 1 + Math.floor(((k + 1) * gap) / (count + 1)));
}
