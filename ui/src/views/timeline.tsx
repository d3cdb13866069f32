// The run tree on a time axis: one lane per run (nested runs under their parent, collapsible), zoom (buttons, + and -,
// Ctrl+wheel) and scroll along the axis, and only the bars in view drawn. Keyboard: one tab stop; arrows move between
// bars (left/right in a lane, up/down across lanes), Enter opens a bar's details.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { costText, summarize } from '../timeline/describe';
import { layoutTimeline, timeSpan, type Lane } from '../timeline/layout';
import type { Bar, Timeline as TimelineModel } from '../timeline/model';
import { TimelineDetail, TimelineText } from './timeline-detail';
import { LABEL_PX, TimelineLane } from './timeline-lane';
import '../timeline.css';

const MAX_ZOOM = 4096;
/** Pixels drawn beyond each side of the visible window, so a short scroll shows bars at once. */
const OVERSCAN_PX = 400;

/** Bars of a lane in keyboard order (by start). */
const navOrder = (lane: Lane): Bar[] =>
  lane.run.bars.filter((b) => !(b.kind === 'tool' && b.status === 'waiting')).sort((a, b) => a.start - b.start);

/** The timeline of `timeline` (re-rendered by its page as events arrive and each second while the tree runs). */
export function Timeline({ timeline, now }: { timeline: TimelineModel; now: number }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ left: 0, width: 1000 });
  const [zoom, setZoom] = useState(1);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [focusId, setFocusId] = useState<string>();
  const [selectedId, setSelectedId] = useState<string>();
  const pending = useRef<{ scroll?: number; focus?: boolean }>({});

  const trackWidth = Math.max(200, view.width - LABEL_PX - 12);
  const { start, end } = timeSpan(timeline, now);
  const pxPerMs = (trackWidth / (end - start)) * zoom;
  const layout = layoutTimeline(timeline, {
    now,
    pxPerMs,
    viewFrom: view.left - OVERSCAN_PX,
    viewTo: view.left + trackWidth + OVERSCAN_PX,
    collapsed,
  });

  useEffect(() => {
    const el = scroller.current!;
    let frame = 0;
    const measure = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => setView({ left: el.scrollLeft, width: el.clientWidth }));
    };
    const resize = new ResizeObserver(measure);
    resize.observe(el);
    el.addEventListener('scroll', measure, { passive: true });
    return () => (resize.disconnect(), el.removeEventListener('scroll', measure), cancelAnimationFrame(frame));
  }, []);

  useLayoutEffect(() => {
    const el = scroller.current!;
    if (pending.current.scroll !== undefined) el.scrollLeft = pending.current.scroll;
    if (pending.current.focus && focusId)
      el.querySelector<HTMLElement>(`[data-bar-id="${CSS.escape(focusId)}"]`)?.focus({ preventScroll: false });
    pending.current = {};
  });

  /** Zooms by `factor`, keeping the time at `anchorPx` (pixels into the visible track) where it is. */
  const zoomBy = (factor: number, anchorPx = trackWidth / 2) => {
    const next = Math.min(MAX_ZOOM, Math.max(1, zoom * factor));
    if (next === zoom) return;
    pending.current.scroll = Math.max(0, (view.left + anchorPx) * (next / zoom) - anchorPx);
    setZoom(next);
  };
  const moveFocus = (bar: Bar | undefined) => {
    if (!bar) return;
    const x = (bar.start - start) * pxPerMs;
    if (x < view.left || x > view.left + trackWidth - 40) pending.current.scroll = Math.max(0, x - trackWidth / 3);
    pending.current.focus = true;
    setFocusId(bar.id);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === '+' || e.key === '=') return zoomBy(2);
    if (e.key === '-') return zoomBy(0.5);
    if (e.key === '0') return zoomBy(1 / zoom);
    if (e.key === 'Escape') return setSelectedId(undefined);
    const lanes = layout.lanes;
    const current = focusId ? timeline.bars[focusId] : undefined;
    const laneAt = lanes.findIndex((l) => l.run.runId === current?.runId);
    if (!current || laneAt === -1) {
      if (e.key.startsWith('Arrow')) moveFocus(lanes.flatMap(navOrder)[0]);
      return;
    }
    const order = navOrder(lanes[laneAt]);
    const at = order.indexOf(current);
    const nearest = (lane: Lane | undefined) =>
      lane &&
      navOrder(lane).reduce<Bar | undefined>(
        (best, b) => (!best || Math.abs(b.start - current.start) < Math.abs(best.start - current.start) ? b : best),
        undefined,
      );
    const moves: Record<string, () => Bar | undefined> = {
      ArrowRight: () => order[at + 1],
      ArrowLeft: () => order[at - 1],
      Home: () => order[0],
      End: () => order[order.length - 1],
      ArrowDown: () =>
        lanes
          .slice(laneAt + 1)
          .map(nearest)
          .find(Boolean),
      ArrowUp: () => lanes.slice(0, laneAt).reverse().map(nearest).find(Boolean),
    };
    if (moves[e.key]) {
      e.preventDefault();
      moveFocus(moves[e.key]());
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      setSelectedId(current.id);
    }
  };
  const onWheel = (e: WheelEvent) => {
    if (!e.ctrlKey) return;
    e.preventDefault();
    const rect = scroller.current!.getBoundingClientRect();
    zoomBy(e.deltaY < 0 ? 1.25 : 0.8, e.clientX - rect.left - LABEL_PX);
  };
  const toggle = (runId: string) =>
    setCollapsed((was) => {
      const next = new Set(was);
      if (!next.delete(runId)) next.add(runId);
      return next;
    });
  const select = (id: string) => (setSelectedId(id), setFocusId(id));
  // One tab stop: the focused bar, else the first bar drawn.
  const tabStop = focusId && timeline.bars[focusId] ? focusId : layout.lanes.flatMap((l) => l.bars)[0]?.bar.id;
  const summary = summarize(timeline, layout.total);

  return (
    <section class="card timeline" data-testid="timeline" aria-label="Timeline of the run tree">
      <div class="tl-toolbar">
        <button onClick={() => zoomBy(0.5)} disabled={zoom <= 1} aria-label="Zoom out" data-testid="zoom-out">
          −
        </button>
        <button onClick={() => zoomBy(2)} aria-label="Zoom in" data-testid="zoom-in">
          +
        </button>
        <button onClick={() => zoomBy(1 / zoom)} disabled={zoom === 1} data-testid="zoom-fit">
          Fit
        </button>
        <span class="muted" data-testid="timeline-zoom">
          {zoom === 1 ? 'whole run' : `×${Math.round(zoom * 10) / 10}`}
        </span>
        <span
          class="tl-total"
          data-testid="timeline-total"
          data-usd={layout.total.known ? layout.total.usd : undefined}
        >
          {costText(layout.total) || 'no cost reported'}
        </span>
      </div>
      <p class="tl-summary muted" id="tl-summary" data-testid="timeline-summary">
        {summary}
      </p>
      <div
        class="tl-scroll"
        ref={scroller}
        onKeyDown={onKeyDown}
        onFocusIn={(e) => {
          const id = (e.target as HTMLElement).dataset.barId;
          if (id && id !== focusId) setFocusId(id);
        }}
        onWheel={onWheel}
        aria-describedby="tl-summary"
        data-rendered-bars={layout.lanes.reduce((n, l) => n + l.bars.length + l.bands.length, 0)}
      >
        <div class="tl-axis" style={{ width: `${LABEL_PX + layout.width}px` }}>
          <div class="tl-label muted">time from start</div>
          <div class="tl-ticks" style={{ width: `${layout.width}px` }}>
            {layout.ticks.map((tick) => (
              <span key={tick.x} style={{ left: `${tick.x}px` }}>
                {tick.label}
              </span>
            ))}
          </div>
        </div>
        {layout.lanes.map((lane) => (
          <TimelineLane
            key={lane.run.runId}
            lane={lane}
            origin={layout.start}
            width={layout.width}
            focusId={tabStop}
            selectedId={selectedId}
            onToggle={toggle}
            onSelect={select}
          />
        ))}
      </div>
      <TimelineDetail
        bar={selectedId ? timeline.bars[selectedId] : undefined}
        origin={layout.start}
        onClose={() => setSelectedId(undefined)}
      />
      <TimelineText layout={layout} />
    </section>
  );
}
