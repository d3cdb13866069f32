// The timeline in words: one line per bar (its tooltip, its accessible name and the text alternative), costs, and the
// facts of the detail panel. Pure.
import type { Usage } from '../../../common';
import { addCost, offsetLabel, type Cost } from './layout';
import type { Bar, Timeline } from './model';

const KIND: Record<Bar['kind'], string> = {
  model: 'model call',
  tool: 'tool call',
  agent: 'agent',
  approval: 'approval wait',
  pause: 'pause',
  outage: 'provider outage',
};

/** A money figure: `$0.0012`, `$0.0012 + unknown price`, `unknown price`, or '' when nothing was priced. */
export function costText(cost: Cost): string {
  if (!cost.known) return '';
  if (cost.usd === 0 && cost.unknown) return 'unknown price';
  const n = cost.usd;
  const usd = n === 0 ? '$0' : n < 0.01 ? `$${n.toPrecision(2)}` : `$${n.toFixed(n < 1 ? 3 : 2)}`;
  return cost.unknown ? `${usd} + unknown price` : usd;
}

/** What one bar's usage cost, as text ('' when it has no priced usage). */
export const barCost = (bar: Bar): string =>
  costText(addCost({ usd: 0, unknown: false, known: false }, bar.usage as Usage | undefined));

/** How long a bar took, or that it still goes on. */
export const barDuration = (bar: Bar): string =>
  bar.end === undefined ? 'ongoing' : offsetLabel(Math.max(0, bar.end - bar.start));

/** One line for a bar: what, when (from `origin`), how long, first token, outcome, cost. */
export function describeBar(bar: Bar, origin: number): string {
  const parts = [
    `${KIND[bar.kind]} ${bar.kind === 'model' || bar.kind === 'pause' ? '' : bar.label}`.trim(),
    `at ${offsetLabel(Math.max(0, bar.start - origin))}`,
    barDuration(bar),
  ];
  if (bar.kind === 'pause' || bar.kind === 'outage') parts[0] = bar.label;
  if (bar.firstTokenAt !== undefined) parts.push(`first token after ${offsetLabel(bar.firstTokenAt - bar.start)}`);
  if (bar.retries.length) parts.push(`${bar.retries.length} ${bar.retries.length === 1 ? 'retry' : 'retries'}`);
  if (bar.status !== 'ok' && bar.status !== 'running' && bar.status !== 'waiting') parts.push(bar.status);
  if (bar.usage) parts.push(`${bar.usage.totalTokens} tokens`);
  const cost = barCost(bar);
  if (cost) parts.push(cost);
  return parts.join(', ');
}

/** The detail panel's rows for a bar. */
export function barFacts(bar: Bar, origin: number): [string, string][] {
  const rows: [string, string][] = [
    ['what', `${KIND[bar.kind]}: ${bar.label}`],
    ['started', `${offsetLabel(Math.max(0, bar.start - origin))} into the run`],
    ['took', barDuration(bar)],
    ['status', bar.status],
  ];
  if (bar.firstTokenAt !== undefined) rows.push(['first token', offsetLabel(bar.firstTokenAt - bar.start)]);
  if (bar.retriedFrom !== undefined) rows.push(['retrying since', offsetLabel(bar.start - bar.retriedFrom)]);
  if (bar.attempt !== undefined && bar.attempt > 1) rows.push(['attempt', String(bar.attempt)]);
  if (bar.retries.length) rows.push(['retries', String(bar.retries.length)]);
  if (bar.usage)
    rows.push(['tokens', `${bar.usage.totalTokens} (${bar.usage.promptTokens} in, ${bar.usage.completionTokens} out)`]);
  const cost = barCost(bar);
  if (cost) rows.push(['cost', cost]);
  if (bar.toolCallId) rows.push(['call id', bar.toolCallId]);
  if (bar.childRunId) rows.push(['run', bar.childRunId]);
  for (const [key, value] of Object.entries(bar.facts)) if (value) rows.push([key, value]);
  return rows;
}

/** A sentence saying what the timeline holds (the text alternative's summary). */
export function summarize(t: Timeline, total: Cost): string {
  const count: Record<Bar['kind'], number> = { model: 0, tool: 0, agent: 0, approval: 0, pause: 0, outage: 0 };
  for (const bar of Object.values(t.bars)) count[bar.kind]++;
  const n = (count: number, what: string) => `${count} ${what}${count === 1 ? '' : 's'}`;
  const parts = [
    n(Object.keys(t.runs).length, 'run'),
    n(count.model, 'model call'),
    n(count.tool + count.agent, 'tool call'),
    count.approval ? n(count.approval, 'approval wait') : '',
    count.pause ? n(count.pause, 'pause') : '',
    count.outage ? n(count.outage, 'outage') : '',
  ].filter(Boolean);
  const cost = costText(total);
  return `${parts.join(', ')}${cost ? `; cost ${cost}` : ''}`;
}
