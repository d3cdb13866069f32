// What a benchmark returns and how run.ts prints it: one table row per figure (median, p99 where it is a
// latency, the baseline and the ratio to it where there is one), plus raw data for the JSON file.
import { fmt } from './stats';
import type { BenchEnv } from './setup';

/** One figure. */
export interface Row {
  metric: string;
  /** The median (or the single value when there is no distribution). */
  value: number;
  unit: string;
  p99?: number;
  baseline?: number;
  /** value / baseline. */
  ratio?: number;
  note?: string;
}

/** What one benchmark produced. */
export interface BenchResult {
  id: string;
  title: string;
  status: 'ok' | 'failed' | 'not_implemented' | 'not_run';
  rows: Row[];
  /** Conclusions in words (e.g. "bytes per step grow with the conversation"). */
  notes: string[];
  /** Raw samples and parameters. */
  data?: Record<string, unknown>;
  error?: string;
  durationMs?: number;
  /** 1-minute load average before and after the benchmark. */
  load?: { before: number; after: number };
}

/** A benchmark. */
export interface Benchmark {
  id: string;
  title: string;
  run(env: BenchEnv): Promise<Omit<BenchResult, 'id' | 'title'>>;
  /**
   * Runs before the environment starts (e.g. installing the peer's own packages); a throw marks the benchmark failed.
   */
  prepare?(log: (msg: string) => void): Promise<void>;
}

/** The results as a fixed-width text table. */
export function renderTable(results: BenchResult[]): string {
  const header = ['bench', 'metric', 'median/value', 'p99', 'baseline', 'ratio', 'unit'];
  const lines: string[][] = [header];
  for (const r of results) {
    if (r.status !== 'ok') {
      lines.push([r.id, `${r.title}: ${r.status.replace('_', ' ')}`, '', '', '', '', '']);
      continue;
    }
    for (const row of r.rows) {
      lines.push([
        r.id,
        row.metric,
        fmt(row.value),
        row.p99 === undefined ? '' : fmt(row.p99),
        row.baseline === undefined ? '' : fmt(row.baseline),
        row.ratio === undefined ? '' : `${fmt(row.ratio, 2)}x`,
        row.unit,
      ]);
    }
  }
  const widths = header.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  const render = (l: string[]) =>
    l
      .map((cell, i) => (i >= 2 && i <= 5 ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const out = [render(lines[0]), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const l of lines.slice(1)) out.push(render(l));
  const notes = results.flatMap((r) => [
    ...r.notes.map((n) => `${r.id}: ${n}`),
    ...(r.error ? [`${r.id}: ERROR ${r.error}`] : []),
  ]);
  return [...out, '', ...notes].join('\n');
}
