// B3 — history growth: events and bytes of the histories of 5-, 20- and 50-step runs (0 ms model). Is the
// cost per step constant, or does it grow with the conversation? Bytes are the JSON size of the fetched history.
import type { BenchResult, Benchmark, Row } from './report';
import {
  eventBytes,
  eventType,
  historyBytes,
  historyProtoBytes,
  countByType,
  type BenchEnv,
  type History,
} from './setup';

/** JSON bytes per event type. */
function bytesByType(history: History): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of history.events ?? []) out[eventType(e)] = (out[eventType(e)] ?? 0) + eventBytes(e);
  return out;
}

/** Bytes of each step's slice of a history: from one model ActivityTaskScheduled (`callModel` in Agio) to the next. */
function bytesPerStep(
  history: History,
  modelActivity: string,
): { events: number; bytes: number; modelInputBytes: number }[] {
  const out: { events: number; bytes: number; modelInputBytes: number }[] = [];
  for (const e of history.events ?? []) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === modelActivity)
      out.push({ events: 0, bytes: 0, modelInputBytes: eventBytes(e) });
    const current = out.at(-1);
    if (!current) continue;
    current.events++;
    current.bytes += eventBytes(e);
  }
  return out;
}

/** Least-squares slope of ys over their index. */
function leastSquaresSlope(ys: number[]): number {
  const n = ys.length;
  if (n < 2) return NaN;
  const mx = (n - 1) / 2;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  ys.forEach((y, x) => {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  });
  return num / den;
}

/** One run's history and how many steps (model calls) it made. */
export interface StepsHistory {
  steps: number;
  history: History;
}

/** B3's rows, notes and data for histories of runs of increasing size; `modelActivity` starts a step. */
export function historyGrowth(
  histories: StepsHistory[],
  modelActivity: string,
  log: (msg: string) => void = () => undefined,
): Pick<BenchResult, 'rows' | 'notes' | 'data'> {
  const rows: Row[] = [];
  const runs: {
    steps: number;
    events: number;
    bytes: number;
    protoBytes: number;
    byType: Record<string, number>;
    bytesByType: Record<string, number>;
    perStep: ReturnType<typeof bytesPerStep>;
  }[] = [];
  for (const { steps, history } of histories) {
    const events = history.events?.length ?? 0;
    const bytes = historyBytes(history);
    const protoBytes = historyProtoBytes(history);
    const perStep = bytesPerStep(history, modelActivity);
    const full = perStep.slice(0, -1); // the last slice also holds the run's end
    runs.push({
      steps,
      events,
      bytes,
      protoBytes,
      byType: countByType(history),
      bytesByType: bytesByType(history),
      perStep,
    });
    log(`${steps} steps: ${events} events, ${bytes} bytes`);
    rows.push(
      {
        metric: `history events, ${steps}-step run`,
        value: events,
        unit: `events (${(events / steps).toFixed(1)} / step)`,
      },
      {
        metric: `history bytes (JSON), ${steps}-step run`,
        value: bytes,
        unit: `bytes (${(bytes / steps).toFixed(0)} / step)`,
      },
      {
        metric: `history bytes (protobuf), ${steps}-step run`,
        value: protoBytes,
        unit: `bytes (${(protoBytes / steps).toFixed(0)} / step)`,
      },
    );
    if (full.length >= 2) {
      rows.push({
        metric: `bytes of step 1 → step ${full.length}, ${steps}-step run`,
        value: full[full.length - 1].bytes,
        baseline: full[0].bytes,
        ratio: full[full.length - 1].bytes / full[0].bytes,
        unit: 'bytes in that step (baseline = step 1)',
      });
    }
  }
  // Marginal cost per step between run sizes: constant if the history grew linearly.
  const r = runs;
  const marginals: { from: number; to: number; eventsPerStep: number; bytesPerStep: number }[] = [];
  for (let i = 1; i < r.length; i++) {
    const d = r[i].steps - r[i - 1].steps;
    marginals.push({
      from: r[i - 1].steps,
      to: r[i].steps,
      eventsPerStep: (r[i].events - r[i - 1].events) / d,
      bytesPerStep: (r[i].bytes - r[i - 1].bytes) / d,
    });
  }
  for (const m of marginals) {
    rows.push(
      { metric: `added events / step, ${m.from} → ${m.to} steps`, value: m.eventsPerStep, unit: 'events / step' },
      { metric: `added bytes / step, ${m.from} → ${m.to} steps`, value: m.bytesPerStep, unit: 'bytes / step' },
    );
  }
  // Signals (delta batches) sometimes share a workflow task, so allow a little jitter.
  const eventsConstant = marginals.every(
    (m) => Math.abs(m.eventsPerStep - marginals[0].eventsPerStep) <= 0.15 * marginals[0].eventsPerStep,
  );
  // Slope of a step's bytes over its index in the longest run: 0 when the cost per step is constant.
  const last = r[r.length - 1].perStep.slice(0, -1);
  const slope = leastSquaresSlope(last.map((s) => s.bytes));
  const modelSlope = leastSquaresSlope(last.map((s) => s.modelInputBytes));
  rows.push(
    {
      metric: `growth of a step's bytes per earlier step (${r[r.length - 1].steps}-step run)`,
      value: slope,
      unit: 'bytes / step, per step',
    },
    { metric: `growth of ${modelActivity} input per earlier step`, value: modelSlope, unit: 'bytes / step, per step' },
  );
  // Agio passes a conversation over limits.inlineModelInputBytes by reference: from that step on the model
  // input is small again, and what matters is whether steps still grow after it.
  const byRef = last.findIndex((s, i) => i > 0 && s.modelInputBytes < last[i - 1].modelInputBytes / 2);
  const tail = byRef > 0 ? last.slice(byRef) : [];
  const tailSlope = leastSquaresSlope(tail.map((s) => s.bytes));
  if (tail.length >= 2) {
    rows.push(
      {
        metric: `  steps ${byRef + 1}–${last.length}: ${modelActivity} input passed by reference`,
        value: tail[0].modelInputBytes,
        baseline: last[byRef - 1].modelInputBytes,
        ratio: tail[0].modelInputBytes / last[byRef - 1].modelInputBytes,
        unit: `bytes of its ActivityTaskScheduled (baseline = step ${byRef}, the last inline one)`,
      },
      {
        metric: `  growth of a step's bytes per earlier step, steps ${byRef + 1}–${last.length}`,
        value: tailSlope,
        unit: 'bytes / step, per step',
      },
    );
  }
  const growing = last.length >= 2 && slope * last.length > 0.1 * last[0].bytes;
  const tailGrowing = tail.length >= 2 && tailSlope * tail.length > 0.1 * tail[0].bytes;
  const notes = [
    `events per step are ${eventsConstant ? 'constant (within signal-batching jitter)' : 'not constant'} (${marginals.map((m) => m.eventsPerStep.toFixed(1)).join(', ')} added per step)`,
    tail.length >= 2
      ? `bytes per step grow with the conversation while ${modelActivity} carries it inline (+${leastSquaresSlope(last.slice(0, byRef).map((s) => s.bytes)).toFixed(0)} bytes per step over steps 1–${byRef}); from step ${byRef + 1} the input names the conversation instead (${last[byRef - 1].modelInputBytes} → ${tail[0].modelInputBytes} bytes) and a step's bytes ${tailGrowing ? `still GROW (${tailSlope.toFixed(0)} bytes per step)` : `stay constant (slope ${tailSlope.toFixed(0)} bytes per step)`}, so total history bytes grow linearly beyond that point`
      : growing
        ? `bytes per step GROW with the conversation: each step adds ~${slope.toFixed(0)} bytes more than the one before (step ${last.length} of the ${r[r.length - 1].steps}-step run: ${last[last.length - 1].bytes} bytes vs ${last[0].bytes} for step 1), because every ${modelActivity} activity input (ActivityTaskScheduled) carries all messages so far (+${modelSlope.toFixed(0)} bytes per step here, with tiny tool outputs); total history bytes therefore grow quadratically with steps, events linearly`
        : `bytes per step are roughly constant (slope ${slope.toFixed(0)} bytes per step)`,
  ];
  return { rows, notes, data: { runs, marginals } };
}

/** B3's run sizes. */
export function b3Sizes(quick: boolean): number[] {
  return quick ? [2, 5] : [5, 20, 50];
}

export const b3: Benchmark = {
  id: 'B3',
  title: 'history growth per step (5, 20, 50 steps)',
  async run(env: BenchEnv) {
    const histories: StepsHistory[] = [];
    for (const steps of b3Sizes(env.quick)) {
      const { handle, output } = await env.run({ steps, tag: `b3-${steps}` });
      if (output.metrics.modelCalls !== steps)
        throw new Error(`run made ${output.metrics.modelCalls} model calls, expected ${steps}`);
      histories.push({ steps, history: await handle.workflow.fetchHistory() });
    }
    return { status: 'ok', ...historyGrowth(histories, 'callModel', (msg) => env.log(`B3: ${msg}`)) };
  },
};
