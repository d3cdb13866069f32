// The in-process live lane: deltas handed to readers as they come, held for readers that resume (after a position,
// with whether their step has ended), positions that only grow (across lanes started later too), and forgetting.
import type { EventDraft } from '../../common';
import { InProcessLane } from '../../live/in-process-lane';
import type { LaneDelta } from '../../live/lane';

const delta = (stepId: string, content: string, attempt = 1): EventDraft => ({
  type: 'STEP_DELTA',
  runId: 'r',
  rootRunId: 'r',
  agent: 'a',
  depth: 0,
  stepId,
  attempt,
  delta: { content },
  timestamp: 1,
});

function collect(
  lane: InProcessLane,
  root: string,
  after: number,
): { got: [string, boolean][]; seqs: number[]; stop: () => void } {
  const got: [string, boolean][] = [];
  const seqs: number[] = [];
  const stop = lane.subscribe(root, after, (d: LaneDelta, ended) => {
    got.push([d.event.delta!.content!, ended]);
    seqs.push(d.seq);
  });
  return { got, seqs, stop };
}

describe('InProcessLane', () => {
  it('hands deltas to every reader of the root as they are published, in order, with growing positions', () => {
    const lane = new InProcessLane();
    const a = collect(lane, 'r', -1);
    const other = collect(lane, 'other', -1);
    lane.publish('r', [delta('s1', 'He'), delta('s1', 'llo')]);
    expect(a.got).toEqual([
      ['He', false],
      ['llo', false],
    ]);
    expect(a.seqs[1]).toBe(a.seqs[0] + 1);
    expect(other.got).toEqual([]);
  });

  it('replays held deltas after a position to a reader that resumes, saying which steps have ended', () => {
    const lane = new InProcessLane();
    const first = collect(lane, 'r', -1);
    lane.publish('r', [delta('s1', 'a'), delta('s1', 'b'), delta('s2', 'c')]);
    lane.endStep('r', 's1', 1);
    first.stop();
    const resumed = collect(lane, 'r', first.seqs[0]);
    expect(resumed.got).toEqual([
      ['b', true],
      ['c', false],
    ]);
    lane.publish('r', [delta('s2', 'd')]);
    expect(resumed.got.at(-1)).toEqual(['d', false]);
  });

  it('gives positions after those of a lane started earlier (a restarted serve), and forgets ended steps after a minute', () => {
    let now = 1_000_000;
    const earlier = new InProcessLane(() => now);
    const before = collect(earlier, 'r', -1);
    earlier.publish('r', [delta('s1', 'x')]);
    const started = Date.now();
    while (Date.now() === started); // a restart takes longer than a millisecond
    const later = new InProcessLane(() => now);
    const after = collect(later, 'r', before.seqs[0]);
    later.publish('r', [delta('s1', 'y')]);
    expect(after.got).toEqual([['y', false]]);
    after.stop();

    later.endStep('r', 's1', 1);
    now += 61_000;
    later.endStep('r', 's9', 1); // any end sweeps the stale ones
    expect(collect(later, 'r', -1).got).toEqual([]);
  });
});
