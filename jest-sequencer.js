// Test order for jest's workers: the longest files start first, so the suite does not end with one worker running a
// slow file alone while the other idles. Jest's own order uses durations from its cache, which a fresh machine (CI)
// lacks; there it falls back to file size. The list is the measured slowest files (about 15 s and more), ordered so
// that neighbours, which run side by side, pair a CPU-heavy file with one that mostly waits. Other files follow in
// jest's order.
const Sequencer = require('@jest/test-sequencer').default;

const SLOW_FIRST = [
  'tests/production/production-shape.test.ts',
  'tests/faults/conversation-compaction.test.ts',
  'tests/faults/store-outage-long.test.ts',
  'tests/integration/package.test.ts',
  'tests/faults/model-heartbeats.test.ts',
  'tests/integration/conversation-store.test.ts',
  'tests/integration/pushed-reads.test.ts',
  'tests/faults/many-runs.test.ts',
  'tests/faults/agent-tool-deadline.test.ts',
  'tests/replay/workflows.test.ts',
  'tests/integration/run-control-pause.test.ts',
  'tests/integration/viewer.test.ts',
  'tests/faults/worker-kill.test.ts',
  'tests/faults/server-restart.test.ts',
  'tests/faults/delta-budget.test.ts',
  'tests/faults/serve-leftovers.test.ts',
  'tests/faults/provider-outage.test.ts',
  'tests/integration/pushed-tree-reads.test.ts',
];

/** Jest's sequencer with the files of SLOW_FIRST moved to the front, in that order. */
class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const rank = (test) => {
      const i = SLOW_FIRST.findIndex((file) => test.path.endsWith(file));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    const sorted = super.sort(tests);
    // Array.prototype.sort is stable: files outside the list keep jest's order.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = SlowFirstSequencer;
