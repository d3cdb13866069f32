// `agio compare|bulk`: two runs side by side, and bulk jobs that pause, resume, cancel or retry every run a filter
// matches (through the bridge: compare needs a read token, bulk an admin one).
import { parseArgs } from 'node:util';
import type { BulkProgress } from '../common/bulk-redrive';
import type { RunComparison } from '../common/run-compare';
import type { BridgeClient } from './bridge-client';
import { bridgeFromEnv, printJson } from './commands';

/** The usage lines of `agio compare` and `agio bulk`. */
export const REDRIVE_USAGE = `  compare <runA> <runB> [--json]   two runs side by side: where they diverge, steps, tool calls, outputs,
                                   tokens, cost and time
  bulk <pause|resume|cancel|retry> [--agent A] [--status S] [--error-type T] [--started-after ISO]
       [--started-before ISO] [--reason TEXT] [--dry-run] [--no-wait]
                                   act on every run of your tenant the filter matches (admin token; without
                                   --status: running runs, retry: failed ones); waits and prints the report
  bulk status|cancel <jobId>       a bulk job's progress (its report once done); stop it
`;

const text = (s: string | null | undefined, width: number) => {
  const flat = (s ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
};

/** A comparison as lines for a terminal. */
export function formatComparison(c: RunComparison): string {
  const side = (label: string, r: RunComparison['a']) =>
    `${label} ${r.runId} (${r.agent ?? '?'}) ${r.status}: ${r.steps} steps, ${r.toolCalls} tool calls, ` +
    `${r.usage.totalTokens} tokens${r.usage.costUsd !== undefined ? `, $${r.usage.costUsd}` : ''}` +
    `${r.durationMs !== undefined ? `, ${r.durationMs} ms` : ''}` +
    `${r.error ? `\n    error ${r.error.type ?? ''}: ${text(r.error.message, 100)}` : ''}` +
    `${r.output !== undefined ? `\n    output: ${text(r.output, 100)}` : ''}`;
  const lines = [side('A', c.a), side('B', c.b)];
  lines.push(
    c.divergence
      ? `diverge at step ${c.divergence.index} (${c.divergence.reason})`
      : 'same steps' + (c.a.steps === 0 ? ' (none)' : ''),
  );
  for (const s of c.steps) {
    const one = (x: RunComparison['steps'][number]['a']) =>
      !x
        ? '—'
        : x.toolCalls
          ? `${x.role} → ${x.toolCalls.map((t) => t.name).join(', ')}`
          : `${x.role}: ${text(x.content, 40)}`;
    lines.push(`${s.same ? ' ' : '≠'} ${String(s.index).padStart(3)}  ${one(s.a).padEnd(50)}  ${one(s.b)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Waits for a bulk job to end, printing its counts to stderr as they change; answers its report. */
async function followJob(bridge: BridgeClient, jobId: string): Promise<BulkProgress> {
  let said = '';
  for (;;) {
    const progress = await bridge.request<BulkProgress>('GET', `/bulk/${jobId}`);
    const now = `${jobId}: ${progress.state}, ${progress.done + progress.skipped + progress.failed}/${progress.matched} (done ${progress.done}, skipped ${progress.skipped}, failed ${progress.failed})`;
    if (now !== said) process.stderr.write(`${(said = now)}\n`);
    if (!['listing', 'running'].includes(progress.state)) return progress;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function bulk(bridge: BridgeClient, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      agent: { type: 'string' },
      status: { type: 'string' },
      'error-type': { type: 'string' },
      'started-after': { type: 'string' },
      'started-before': { type: 'string' },
      reason: { type: 'string' },
      'dry-run': { type: 'boolean' },
      'no-wait': { type: 'boolean' },
    },
  });
  const [action, jobId] = positionals;
  if (action === 'status' || action === 'cancel') {
    if (!jobId) throw new Error(`usage: agio bulk ${action} <jobId>`);
    const path = `/bulk/${encodeURIComponent(jobId)}${action === 'cancel' ? '/cancel' : ''}`;
    return printJson(bridge.request(action === 'cancel' ? 'POST' : 'GET', path));
  }
  if (!['pause', 'resume', 'cancel', 'retry'].includes(action ?? '')) throw new Error(`usage:\n${REDRIVE_USAGE}`);
  const filter = {
    ...(values.agent ? { agent: values.agent } : {}),
    ...(values.status ? { status: values.status } : {}),
    ...(values['error-type'] ? { errorType: values['error-type'] } : {}),
    ...(values['started-after'] ? { startedAfter: values['started-after'] } : {}),
    ...(values['started-before'] ? { startedBefore: values['started-before'] } : {}),
  };
  const body = { action, filter, ...(values.reason ? { reason: values.reason } : {}) };
  if (values['dry-run']) return printJson(bridge.request('POST', '/bulk', { ...body, dryRun: true }));
  const started = await bridge.request<{ jobId: string }>('POST', '/bulk', body);
  if (values['no-wait']) return printJson(Promise.resolve(started));
  const report = await followJob(bridge, started.jobId);
  await printJson(Promise.resolve(report));
  return report.state === 'completed' && report.failed === 0 ? 0 : 1;
}

/** Runs `agio compare …` or `agio bulk …`; returns the exit code. */
export async function redriveCommand(command: string, args: string[]): Promise<number> {
  const bridge = bridgeFromEnv();
  if (command === 'bulk') return bulk(bridge, args);
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  const [a, b] = positionals;
  if (!a || !b) throw new Error('usage: agio compare <runA> <runB> [--json]');
  const comparison = bridge.request<RunComparison>('GET', `/runs/compare?${new URLSearchParams({ a, b }).toString()}`);
  if (values.json) return printJson(comparison);
  process.stdout.write(formatComparison(await comparison));
  return 0;
}
