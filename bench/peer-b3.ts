// PEER × B3 — history growth of @temporalio/openai-agents runs of 5, 20 and 50 steps (0 ms model), analysed
// exactly like Agio's in B3: events and bytes per run, per step, and how a step's slice grows with the
// conversation. For both modes: run() (the package's default) and run({ stream: true }) without a subscriber.
import { b3Sizes, historyGrowth, type StepsHistory } from './b3-history-growth';
import type { PeerEnv } from './peer-env';
import type { BenchResult } from './report';
import type { BenchEnv } from './setup';

/** Rows shown for the streaming mode (the full set is in the JSON). */
const STREAM_ROWS = /^(history events|history bytes \(protobuf\)|added events|added bytes|growth)/;

export async function peerB3(env: BenchEnv, peer: PeerEnv): Promise<Pick<BenchResult, 'rows' | 'notes' | 'data'>> {
  const modes = [
    { stream: false, label: 'peer run()', modelActivity: 'invokeModelActivity' },
    { stream: true, label: 'peer streaming', modelActivity: 'invokeModelStreamActivity' },
  ];
  const out: Pick<BenchResult, 'rows' | 'notes' | 'data'> & { data: Record<string, unknown> } = {
    rows: [],
    notes: [],
    data: {},
  };
  for (const { stream, label, modelActivity } of modes) {
    const histories: StepsHistory[] = [];
    for (const steps of b3Sizes(env.quick)) {
      const { handle } = await peer.run({ steps, tag: `pb3-${stream ? 's' : 'n'}${steps}` }, stream);
      histories.push({ steps, history: await handle.fetchHistory() });
    }
    const growth = historyGrowth(histories, modelActivity, (msg) => env.log(`PEER B3 (${label}): ${msg}`));
    out.rows.push(
      ...growth.rows
        .filter((r) => !stream || STREAM_ROWS.test(r.metric))
        .map((r) => ({ ...r, metric: `B3 ${label}: ${r.metric}` })),
    );
    out.notes.push(...growth.notes.map((n) => `B3 ${label}: ${n}`));
    out.data[stream ? 'streaming' : 'run'] = growth.data;
  }
  return out;
}
