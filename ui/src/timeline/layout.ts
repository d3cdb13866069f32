// Lays a timeline out for drawing: lanes in tree order (a run's nested runs under it, a collapsed run's hidden), each
// lane's bars packed into rows so none overlap, pixel positions at the current scale, and only the bars inside the
// visible window, so a run of hundreds of steps draws a few hundred elements at most. Pure.
import type { Usage } from '../../../common';
import type { Bar, Timeline, TimelineRun } from './model';

/** What the view asks for: the scale, the visible window (pixels from the axis' start) and the collapsed runs. */
export interface LayoutOptions {
  now: number;
  pxPerMs: number;
  viewFrom: number;
  viewTo: number;
  collapsed: ReadonlySet<string>;
}

/** Money spent: the priced part, and whether some model had no price. */
export interface Cost {
  usd: number;
  unknown: boolean;
  /** Whether any usage said anything about its cost (runs before pricing did not). */
  known: boolean;
}

/** A bar where it is drawn. `row` within its lane; `ongoing` while it lasts (drawn to now). */
export interface PlacedBar {
  bar: Bar;
  x: number;
  w: number;
  row: number;
  ongoing: boolean;
  /** Pixels from the bar's left: its first token, and its earlier attempts' start (negative). */
  firstTokenX?: number;
  retriedX?: number;
}

/** One run's lane. */
export interface Lane {
  run: TimelineRun;
  depth: number;
  rows: number;
  hasChildren: boolean;
  collapsed: boolean;
  /** The run's own span. */
  spanX: number;
  spanW: number;
  bars: PlacedBar[];
  /** Pauses, drawn across the lane. */
  bands: PlacedBar[];
  ownCost: Cost;
  treeCost: Cost;
}

/** A time axis mark. */
export interface Tick {
  x: number;
  label: string;
}

/** The laid-out timeline. */
export interface TimelineLayout {
  start: number;
  end: number;
  width: number;
  lanes: Lane[];
  ticks: Tick[];
  total: Cost;
}

/** Narrowest a bar is drawn, in pixels: a call of a few milliseconds stays visible and clickable. */
export const MIN_BAR_PX = 3;

/** Adds a usage's cost to a cost. */
export function addCost(cost: Cost, usage: Usage | undefined): Cost {
  if (!usage || (usage.costUsd === undefined && !usage.costUnknown)) return cost;
  return { usd: cost.usd + (usage.costUsd ?? 0), unknown: cost.unknown || !!usage.costUnknown, known: true };
}

const NO_COST: Cost = { usd: 0, unknown: false, known: false };
const sumCosts = (a: Cost, b: Cost): Cost =>
  a.known || b.known ? { usd: a.usd + b.usd, unknown: a.unknown || b.unknown, known: true } : NO_COST;

/** What a run's own model calls cost. */
export const ownCost = (run: TimelineRun): Cost =>
  run.bars.reduce((cost, b) => (b.kind === 'model' ? addCost(cost, b.usage) : cost), NO_COST);

/** What a run and everything nested in it cost: its reported total once it ended, its bars' sum before. */
export function treeCost(t: Timeline, runId: string): Cost {
  const run = t.runs[runId];
  if (!run) return NO_COST;
  if (run.treeUsage && (run.treeUsage.costUsd !== undefined || run.treeUsage.costUnknown))
    return addCost(NO_COST, run.treeUsage);
  return run.children.reduce((sum, child) => sumCosts(sum, treeCost(t, child)), ownCost(run));
}

/** Runs in the order their lanes are drawn: depth first, children by when they started. */
function laneOrder(t: Timeline, collapsed: ReadonlySet<string>): TimelineRun[] {
  const out: TimelineRun[] = [];
  const visit = (run: TimelineRun) => {
    out.push(run);
    if (collapsed.has(run.runId)) return;
    const kids = run.children.map((id) => t.runs[id]).filter((r): r is TimelineRun => !!r);
    kids.sort((a, b) => (a.startedAt ?? Infinity) - (b.startedAt ?? Infinity));
    kids.forEach(visit);
  };
  const root = t.rootRunId ? t.runs[t.rootRunId] : Object.values(t.runs).find((r) => !t.runs[r.parentRunId ?? '']);
  if (root) visit(root);
  return out;
}

/** Packs bars into rows in order of their start: each goes to the first row free at its start. */
function pack(bars: Bar[], now: number): { rows: Map<Bar, number>; count: number } {
  const ends: number[] = [];
  const rows = new Map<Bar, number>();
  for (const bar of [...bars].sort((a, b) => a.start - b.start)) {
    let row = ends.findIndex((end) => end <= bar.start);
    if (row === -1) row = ends.push(0) - 1;
    ends[row] = Math.max(bar.end ?? now, bar.start + 1);
    rows.set(bar, row);
  }
  return { rows, count: Math.max(1, ends.length) };
}

/** A round interval for ticks at least `minPx` apart. */
export function tickStep(pxPerMs: number, minPx = 90): number {
  const raw = minPx / pxPerMs;
  const units = [
    1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000,
  ];
  const more = [600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 86_400_000];
  return [...units, ...more].find((u) => u >= raw) ?? 86_400_000 * Math.ceil(raw / 86_400_000);
}

/** A time from the run's start, as an axis label. */
export function offsetLabel(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${+(ms / 1000).toFixed(2)} s`;
  if (ms < 3_600_000)
    return `${Math.floor(ms / 60_000)} m${ms % 60_000 ? ` ${Math.round((ms % 60_000) / 1000)} s` : ''}`;
  return `${Math.floor(ms / 3_600_000)} h${ms % 3_600_000 ? ` ${Math.round((ms % 3_600_000) / 60_000)} m` : ''}`;
}

/** Where the axis starts (the root's start) and ends (its last event, or now while a run of the tree runs). */
export function timeSpan(t: Timeline, now: number): { start: number; end: number } {
  const root = t.rootRunId ? t.runs[t.rootRunId] : undefined;
  const start = root?.startedAt ?? t.first ?? now;
  const running = Object.values(t.runs).some((r) => r.status === 'running');
  return { start, end: Math.max(start + 1, running ? Math.max(now, t.last ?? now) : (t.last ?? now)) };
}

/** Lanes, placed bars inside the window, ticks and the tree's total cost. */
export function layoutTimeline(t: Timeline, opts: LayoutOptions): TimelineLayout {
  const { now, pxPerMs, viewFrom, viewTo, collapsed } = opts;
  const root = t.rootRunId ? t.runs[t.rootRunId] : undefined;
  const { start, end } = timeSpan(t, now);
  const px = (at: number) => (at - start) * pxPerMs;
  const width = px(end);
  const place = (bar: Bar, row: number): PlacedBar | undefined => {
    const x = px(bar.start);
    const w = Math.max(MIN_BAR_PX, px(bar.end ?? end) - x);
    if (x > viewTo || x + w < viewFrom) return undefined;
    const placed: PlacedBar = { bar, x, w, row, ongoing: bar.end === undefined };
    if (bar.firstTokenAt !== undefined) placed.firstTokenX = px(bar.firstTokenAt) - x;
    if (bar.retriedFrom !== undefined) placed.retriedX = px(bar.retriedFrom) - x;
    return placed;
  };
  const lanes = laneOrder(t, collapsed).map((run): Lane => {
    // A call waiting for its approval shows as the approval's wait, not yet as a call.
    const drawn = run.bars.filter((b) => b.kind !== 'pause' && !(b.kind === 'tool' && b.status === 'waiting'));
    const { rows, count } = pack(drawn, end);
    const spanX = px(run.startedAt ?? start);
    return {
      run,
      depth: run.depth,
      rows: count,
      hasChildren: run.children.length > 0,
      collapsed: collapsed.has(run.runId),
      spanX,
      spanW: Math.max(MIN_BAR_PX, px(run.endedAt ?? end) - spanX),
      bars: drawn.flatMap((b) => place(b, rows.get(b)!) ?? []),
      bands: run.bars.flatMap((b) => (b.kind === 'pause' ? (place(b, 0) ?? []) : [])),
      ownCost: ownCost(run),
      treeCost: treeCost(t, run.runId),
    };
  });
  const step = tickStep(pxPerMs);
  const ticks: Tick[] = [];
  for (let at = Math.ceil(viewFrom / pxPerMs / step) * step; at * pxPerMs <= Math.min(viewTo, width); at += step)
    ticks.push({ x: at * pxPerMs, label: offsetLabel(at) });
  return { start, end, width, lanes, ticks, total: root ? treeCost(t, root.runId) : NO_COST };
}
