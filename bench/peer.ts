// The peer comparison: @temporalio/openai-agents (TemporalOpenAIRunner) on the B1, B2, B3 and B7 workloads, against
// the same dev server and scripted model as Agio, in the same run. It cannot share Agio's Temporal SDK (it
// exists only for 1.22.0/1.23.0 and pins the SDK exactly), so it lives in its own package,
// bench/peer-openai-agents (installed on demand by `prepare`), and runs in its own processes (bench/peer-env.ts).
import { peerB1 } from './peer-b1';
import { peerB2 } from './peer-b2';
import { peerB3 } from './peer-b3';
import { peerB7 } from './peer-b7';
import { ensurePeerInstalled, PeerEnv } from './peer-env';
import type { BenchResult, Benchmark } from './report';
import type { BenchEnv } from './setup';

type Section = (env: BenchEnv, peer: PeerEnv) => Promise<Pick<BenchResult, 'rows' | 'notes' | 'data'>>;

const SECTIONS: [string, Section][] = [
  ['B1', peerB1],
  ['B2', peerB2],
  ['B3', peerB3],
  ['B7', peerB7],
];

/** BENCH_PEER_SECTIONS (e.g. `B7` or `B1,B3`): only these sections of PEER; all by default. */
const only = process.env.BENCH_PEER_SECTIONS?.toUpperCase().split(',').filter(Boolean);

export const peer: Benchmark = {
  id: 'PEER',
  title: '@temporalio/openai-agents 1.23.0 (TemporalOpenAIRunner) on the B1–B3 and B7 workloads',
  prepare: ensurePeerInstalled,
  async run(env: BenchEnv) {
    const p = await PeerEnv.start(env);
    env.log(
      `PEER: worker pid ${p.worker.pid} ready in ${p.worker.startupMs} ms (workflow bundle built at start-up), ${Object.entries(
        p.worker.info.versions,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    const result: Omit<BenchResult, 'id' | 'title'> & { rows: BenchResult['rows']; data: Record<string, unknown> } = {
      status: 'ok',
      rows: [],
      notes: [
        `setup: its own package (bench/peer-openai-agents, Temporal SDK ${p.worker.info.versions['@temporalio/worker']}, @openai/agents-core ${p.worker.info.versions['@openai/agents-core']}, openai ${p.worker.info.versions.openai}); one worker process with OpenAIAgentsPlugin (OpenAIProvider with useResponses: false, i.e. Chat Completions against the scripted server; default Worker options, default tracing) on its own task queue; runs started and awaited by the bench's own Temporal client, like Agio's; the same scripted model plans as B1–B3`,
        'setup: the worker bundles dynamic import()s eagerly (webpackConfigHook): a TypeScript workflow reaches the bundler as ESM, so it picks @openai/agents-core\'s .mjs build, whose dynamic import() otherwise becomes a separate chunk the workflow sandbox cannot load ("Automatic publicPath is not supported")',
      ],
      data: { versions: p.worker.info.versions, workerStartupMs: p.worker.startupMs },
    };
    try {
      for (const [name, section] of SECTIONS.filter(([n]) => !only || only.includes(n))) {
        try {
          const s = await section(env, p);
          result.rows.push(...s.rows);
          result.notes.push(...s.notes);
          result.data[name] = s.data;
        } catch (err) {
          env.log(`PEER ${name} failed: ${(err as Error).stack ?? String(err)}`);
          result.notes.push(`${name} failed: ${(err as Error).message.split('\n')[0]}`);
          result.data[name] = { error: (err as Error).message };
        }
      }
    } finally {
      await p.close();
    }
    if (!result.rows.length) result.status = 'failed';
    return result;
  },
};
