// The viewer's timeline: events folded into bars (model calls with first tokens and retries, tool calls timed from
// their steps or from the events around them, agents used as tools, approval waits, pauses, outages) and laid out in
// lanes (nested runs under their parent, collapsible, overlapping calls in rows, only bars in view, costs).
import type { WireEvent } from '../../common';
import { costText, describeBar } from '../../ui/src/timeline/describe';
import { layoutTimeline, tickStep } from '../../ui/src/timeline/layout';
import { applyTimelineEvent, emptyTimeline } from '../../ui/src/timeline/model';

const ROOT = 'run-1';
const CHILD = 'run-1/tool/call_1';
const priced = (usd: number) => ({ promptTokens: 10, completionTokens: 5, totalTokens: 15, costUsd: usd });

function ev(runId: string, type: string, timestamp: number, extra: Partial<WireEvent> = {}): WireEvent {
  const base =
    runId === ROOT
      ? { runId, rootRunId: ROOT, agent: 'lead', depth: 0 }
      : { runId, rootRunId: ROOT, parentRunId: ROOT, agent: 'helper', depth: 1, toolCallId: 'call_1', ownLog: true };
  return { ...base, type, timestamp, offset: 0, ...extra } as WireEvent;
}
const snap = (runId: string, index: number, role: 'assistant' | 'tool', extra: Record<string, unknown>) => ({
  stepId: `${runId}:${index}`,
  snapshot: { id: `${runId}:${index}`, runId, index, role, content: null, ...extra },
});

/** lead calls helper (an agent tool) at 1000–5000; helper calls record, which waits for approval 2000–3000. */
function nestedTimeline() {
  const t = emptyTimeline();
  const events = [
    ev(ROOT, 'RUN_STARTED', 0),
    ev(ROOT, 'STEP_DELTA', 300, { stepId: `${ROOT}:1`, attempt: 1, delta: { content: 'x' } }),
    ev(ROOT, 'STEP_COMPLETED', 1000, {
      ...snap(ROOT, 1, 'assistant', {
        toolCalls: [{ id: 'call_1', name: 'helper', arguments: '{}' }],
        usage: priced(0.001),
        metrics: { startedAt: 100, durationMs: 900, firstTokenMs: 200, attempt: 1 },
      }),
    }),
    ev(CHILD, 'RUN_STARTED', 1100),
    ev(CHILD, 'STEP_COMPLETED', 1900, {
      ...snap(CHILD, 1, 'assistant', {
        toolCalls: [{ id: 'call_2', name: 'record', arguments: '{}' }],
        usage: { ...priced(0), costUnknown: true },
        metrics: { startedAt: 1200, durationMs: 700, firstTokenMs: 100, attempt: 1 },
      }),
    }),
    ev(CHILD, 'TOOL_AUTH_REQUIRED', 2000, { data: { toolCallId: 'call_2', tool: 'record', reason: 'ask' } }),
    ev(CHILD, 'TOOL_AUTH_GRANTED', 3000, { data: { toolCallId: 'call_2', tool: 'record', by: 'api:a' } }),
    ev(CHILD, 'STEP_COMPLETED', 3400, {
      ...snap(CHILD, 2, 'tool', { toolCallId: 'call_2', name: 'record', content: 'ok' }),
    }),
    ev(CHILD, 'RUN_COMPLETED', 4000, { usage: { ...priced(0), costUnknown: true } }),
    ev(ROOT, 'STEP_COMPLETED', 4100, {
      ...snap(ROOT, 2, 'tool', {
        toolCallId: 'call_1',
        name: 'helper',
        content: 'done',
        usage: { ...priced(0), costUnknown: true },
        metadata: { childRunId: CHILD },
        metrics: { startedAt: 1050, durationMs: 3000 },
      }),
    }),
    ev(ROOT, 'RUN_PAUSED', 4200, { data: { reason: 'budget', budget: { kind: 'run', limitUsd: 1, spentUsd: 1 } } }),
    ev(ROOT, 'RUN_RESUMED', 4600, {}),
    ev(ROOT, 'RUN_COMPLETED', 5000, { usage: { ...priced(0.001), costUnknown: true } }),
  ];
  for (const e of events) applyTimelineEvent(t, e);
  return t;
}

const opts = { now: 10_000, pxPerMs: 0.1, viewFrom: 0, viewTo: 1e9, collapsed: new Set<string>() };

describe('the viewer timeline', () => {
  it('times model calls from their metrics, tool calls from the events around them, approvals and pauses', () => {
    const t = nestedTimeline();
    const model = t.bars[`model:${ROOT}:1`];
    expect(model).toMatchObject({ start: 100, end: 1000, firstTokenAt: 300, status: 'ok', usage: priced(0.001) });
    expect(t.bars[`call:${ROOT}:call_1`]).toMatchObject({ kind: 'agent', childRunId: CHILD, start: 1050, end: 4050 });
    // No metrics on the tool step: it ran from its approval to its result.
    expect(t.bars[`call:${CHILD}:call_2`]).toMatchObject({ kind: 'tool', start: 3000, end: 3400, status: 'ok' });
    expect(t.bars[`approval:${CHILD}:call_2`]).toMatchObject({ start: 2000, end: 3000, status: 'granted' });
    const pause = t.runs[ROOT].bars.find((b) => b.kind === 'pause')!;
    expect(pause).toMatchObject({ start: 4200, end: 4600, label: 'paused: budget' });
    expect(pause.facts.budget).toBe('run budget: spent $1 of $1');
  });

  it('lays nested runs out under their parent, with costs, and hides them when collapsed', () => {
    const t = nestedTimeline();
    const layout = layoutTimeline(t, opts);
    expect(layout.lanes.map((l) => [l.run.agent, l.depth])).toEqual([
      ['lead', 0],
      ['helper', 1],
    ]);
    expect(layout.width).toBe(500);
    expect(costText(layout.total)).toBe('$0.0010 + unknown price');
    expect(costText(layout.lanes[1].treeCost)).toBe('unknown price');
    const model = layout.lanes[0].bars.find((p) => p.bar.kind === 'model')!;
    expect(model).toMatchObject({ x: 10, w: 90, firstTokenX: 20 });
    expect(layout.lanes[0].bands).toHaveLength(1);
    const collapsed = layoutTimeline(t, { ...opts, collapsed: new Set([ROOT]) });
    expect(collapsed.lanes.map((l) => l.run.agent)).toEqual(['lead']);
    expect(describeBar(t.bars[`model:${ROOT}:1`], 0)).toBe(
      'model call, at 100 ms, 900 ms, first token after 200 ms, 15 tokens, $0.0010',
    );
  });

  it('draws only the bars in view, packs overlapping calls into rows and picks round ticks', () => {
    const t = emptyTimeline();
    applyTimelineEvent(t, ev(ROOT, 'RUN_STARTED', 0));
    const calls = Array.from({ length: 500 }, (_, i) => ({ id: `c${i}`, name: 'read', arguments: '{}' }));
    applyTimelineEvent(t, ev(ROOT, 'STEP_COMPLETED', 10, { ...snap(ROOT, 1, 'assistant', { toolCalls: calls }) }));
    calls.forEach((c, i) =>
      applyTimelineEvent(
        t,
        ev(ROOT, 'STEP_COMPLETED', 20 + i * 10, {
          ...snap(ROOT, 2 + i, 'tool', {
            toolCallId: c.id,
            name: 'read',
            metrics: { startedAt: i * 10, durationMs: 15 },
          }),
        }),
      ),
    );
    applyTimelineEvent(t, ev(ROOT, 'RUN_COMPLETED', 6000));
    const all = layoutTimeline(t, opts);
    expect(all.lanes[0].bars).toHaveLength(501);
    // The model call (10–10) sits between the first two calls, which overlap: three rows.
    expect(all.lanes[0].rows).toBe(3);
    const window = layoutTimeline(t, { ...opts, pxPerMs: 1, viewFrom: 1000, viewTo: 2000 });
    expect(window.lanes[0].bars.length).toBeLessThan(110);
    expect(window.ticks.map((tick) => tick.label).slice(0, 2)).toEqual(['1 s', '1.1 s']);
    expect(tickStep(0.001)).toBe(120_000);
  });

  it('shows a live model call from the previous event, a retry and a provider outage until the step commits', () => {
    const t = emptyTimeline();
    applyTimelineEvent(t, ev(ROOT, 'RUN_STARTED', 0));
    applyTimelineEvent(t, ev(ROOT, 'STEP_RETRY', 500, { stepId: `${ROOT}:1`, attempt: 2, data: { reason: '503' } }));
    applyTimelineEvent(
      t,
      ev(ROOT, 'MODEL_UNAVAILABLE', 900, {
        stepId: `${ROOT}:1`,
        attempt: 3,
        data: { reason: '503', errorType: 'ModelUnavailable', failingSince: 100, nextAttemptAt: 1500 },
      }),
    );
    expect(t.bars[`model:${ROOT}:1`]).toMatchObject({ start: 0, status: 'running', retries: [500] });
    expect(t.bars[`outage:${ROOT}:1`]).toMatchObject({ start: 100, status: 'waiting' });
    expect(t.bars[`outage:${ROOT}:1`].end).toBeUndefined();
    const live = layoutTimeline(t, { ...opts, now: 1000 });
    expect(live.lanes[0].bars.find((p) => p.bar.kind === 'outage')).toMatchObject({ ongoing: true, w: 90 });
    applyTimelineEvent(
      t,
      ev(ROOT, 'STEP_COMPLETED', 2500, {
        ...snap(ROOT, 1, 'assistant', { content: 'hi', metrics: { startedAt: 2000, durationMs: 400, attempt: 4 } }),
      }),
    );
    expect(t.bars[`model:${ROOT}:1`]).toMatchObject({ start: 2000, end: 2400, retriedFrom: 0, attempt: 4 });
    expect(t.bars[`outage:${ROOT}:1`]).toMatchObject({ start: 100, end: 2000 });
  });
});
