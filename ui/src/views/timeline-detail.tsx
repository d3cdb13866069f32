// Under the timeline: the selected bar's facts, and the whole timeline as text (built only when opened, so a run of
// hundreds of steps does not pay for it on every event).
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { linkTo, runUrl } from '../router';
import { barFacts, costText, describeBar } from '../timeline/describe';
import type { TimelineLayout } from '../timeline/layout';
import type { Bar } from '../timeline/model';

/** The facts of the bar last clicked or chosen with the keyboard. */
export function TimelineDetail({ bar, origin, onClose }: { bar?: Bar; origin: number; onClose(): void }) {
  if (!bar) return <p class="tl-hint muted">Click a bar (or focus it and press Enter) for its details.</p>;
  return (
    <div class="tl-detail" data-testid="timeline-detail" role="region" aria-label="Selected bar" aria-live="polite">
      <dl class="facts">
        {barFacts(bar, origin).map(([key, value]) => (
          <Fragment key={key}>
            <dt>{key}</dt>
            <dd data-fact={key}>{value}</dd>
          </Fragment>
        ))}
      </dl>
      {bar.childRunId && <a {...linkTo(runUrl(bar.childRunId))}>Open {bar.label}'s run</a>}{' '}
      <button onClick={onClose}>Close</button>
    </div>
  );
}

/** Every lane and bar in words, for screen readers and for copying. */
export function TimelineText({ layout }: { layout: TimelineLayout }) {
  const [open, setOpen] = useState(false);
  return (
    <details class="tl-text" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Timeline as text</summary>
      {open && (
        <ul data-testid="timeline-text">
          {layout.lanes.map(({ run, treeCost }) => (
            <li key={run.runId}>
              {run.agent} ({run.status}){costText(treeCost) ? `, ${costText(treeCost)}` : ''}
              <ol>
                {[...run.bars]
                  .sort((a, b) => a.start - b.start)
                  .map((bar) => (
                    <li key={bar.id}>{describeBar(bar, layout.start)}</li>
                  ))}
              </ol>
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
