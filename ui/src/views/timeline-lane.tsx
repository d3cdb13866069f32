// One run's lane of the timeline: its label (agent, status, own and tree cost, a toggle for its nested runs) kept in
// view while the axis scrolls, and its track: the run's span, pauses across it, and its bars in rows.
import type { Lane, PlacedBar } from '../timeline/layout';
import { costText, describeBar } from '../timeline/describe';

/** Height of one row of bars, in pixels. */
export const ROW_PX = 20;
/** Width of the lanes' labels, in pixels. */
export const LABEL_PX = 220;

interface LaneProps {
  lane: Lane;
  origin: number;
  width: number;
  focusId?: string;
  selectedId?: string;
  onToggle(runId: string): void;
  onSelect(barId: string): void;
}

/** A lane: its label, and its bars as buttons (each focusable, named by its one-line description). */
export function TimelineLane({ lane, origin, width, focusId, selectedId, onToggle, onSelect }: LaneProps) {
  const { run } = lane;
  const own = costText(lane.ownCost);
  const tree = costText(lane.treeCost);
  return (
    <div
      class={`tl-lane s-${run.status}`}
      role="group"
      aria-label={`${run.agent} (${run.status})${tree ? `, ${tree}` : ''}`}
      data-testid="timeline-lane"
      data-run-id={run.runId}
      data-agent={run.agent}
      data-depth={lane.depth}
      data-own-cost={lane.ownCost.known ? lane.ownCost.usd : undefined}
      data-tree-cost={lane.treeCost.known ? lane.treeCost.usd : undefined}
    >
      <div class="tl-label" style={{ paddingLeft: `${6 + lane.depth * 14}px` }}>
        {lane.hasChildren ? (
          <button
            class="tl-toggle"
            aria-expanded={!lane.collapsed}
            aria-label={`${lane.collapsed ? 'Show' : 'Hide'} runs nested in ${run.agent}`}
            data-testid="lane-toggle"
            onClick={() => onToggle(run.runId)}
          >
            {lane.collapsed ? '▸' : '▾'}
          </button>
        ) : (
          <span class="tl-toggle" />
        )}
        <span class="tl-agent" title={run.runId}>
          {run.agent}
        </span>
        <span class="tl-cost" title={`own ${own || 'no cost'}; with nested runs ${tree || 'no cost'}`}>
          {tree}
        </span>
      </div>
      <div class="tl-track" style={{ width: `${width}px`, height: `${lane.rows * ROW_PX + 6}px` }}>
        <div class="tl-span" style={{ left: `${lane.spanX}px`, width: `${lane.spanW}px` }} />
        {/* Bands (pauses across the lane) first, so the bars draw over them. */}
        {[...lane.bands, ...lane.bars].map((p) => (
          <BarButton
            key={p.bar.id}
            p={p}
            origin={origin}
            focusId={focusId}
            selectedId={selectedId}
            onSelect={onSelect}
          />
        ))}
      </div>
    </div>
  );
}

interface BarProps {
  p: PlacedBar;
  origin: number;
  focusId?: string;
  selectedId?: string;
  onSelect(barId: string): void;
}

function BarButton({ p, origin, focusId, selectedId, onSelect }: BarProps) {
  const { bar } = p;
  const text = describeBar(bar, origin);
  const band = bar.kind === 'pause';
  const style = band
    ? { left: `${p.x}px`, width: `${p.w}px` }
    : { left: `${p.x}px`, width: `${p.w}px`, top: `${3 + p.row * ROW_PX}px` };
  return (
    <button
      class={`tl-bar k-${bar.kind} s-${bar.status}${p.ongoing ? ' ongoing' : ''}${bar.id === selectedId ? ' selected' : ''}`}
      style={style}
      tabIndex={bar.id === focusId ? 0 : -1}
      title={text}
      aria-label={text}
      data-testid="timeline-bar"
      data-bar-id={bar.id}
      data-kind={bar.kind}
      data-status={bar.status}
      data-cost={bar.usage?.costUsd}
      data-cost-unknown={bar.usage?.costUnknown ? 'true' : undefined}
      onClick={() => onSelect(bar.id)}
    >
      {p.retriedX !== undefined && (
        <i class="tl-retried" style={{ left: `${p.retriedX}px`, width: `${-p.retriedX}px` }} />
      )}
      {p.firstTokenX !== undefined && <i class="tl-first-token" style={{ left: `${p.firstTokenX}px` }} />}
      {p.w > 60 && <span class="tl-bar-label">{bar.kind === 'model' ? 'model' : bar.label}</span>}
    </button>
  );
}
