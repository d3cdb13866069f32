// B2 — stream latency: from the scripted model writing a token chunk (its `onChunk` writtenAt) to an SSE client
// of the bridge receiving the STEP_DELTA that carries it (matched by content: every token is unique; a delta may
// carry several), both clocks in this process. Three lanes, with 1, 10 and 50 concurrent streaming runs each:
// - live lane (serve): a worker and a bridge in one process (as `agio serve`): model → callModel → in-process lane →
// SSE;
// - live lane (NATS): a worker and a bridge in processes of their own: model → callModel → JetStream → bridge → SSE;
// - signal lane: a separate worker and bridge: model → callModel → batched publish signal → the root workflow's
//   Wire → the bridge's events Query poll → SSE.
// Plus history events and publish signals per 1,000 streamed tokens (a token = one chunk).
import { readSse } from '../tests/helpers/sse-client';
import type { AgioClient } from '../client/agio-client';
import type { Benchmark, Row } from './report';
import {
  BENCH_TOKEN,
  bridgeQueries,
  countByType,
  cpuSeconds,
  eventTime,
  sleep,
  type BenchEnv,
  type History,
} from './setup';
import { summarize, type Summary } from './stats';

/** Where a chunk's latency went: written → publish signal accepted by the server → the workflow task that
 * appended it to the Wire completed → received by the SSE client. */
interface Split {
  publishMs: number;
  applyMs: number;
  readMs: number;
}

interface RunSample {
  runId: string;
  latencies: number[];
  splits: Split[];
  unmatched: number;
  events: number;
  signals: number;
  /** STEP_DELTA events the SSE client received. */
  deltas: number;
}

interface Phase {
  concurrency: number;
  /** History events the streaming added over a non-streaming 1-step run, per 1,000 tokens. */
  addedEventsPer1000Tokens?: number;
  /** History events of an unstreamed 1-step run on the same lane at the same concurrency (mean): the reference. */
  plainEvents: number;
  runs: RunSample[];
  latency: Summary;
  eventsPer1000Tokens: number;
  signalsPer1000Tokens: number;
  deltasPer1000Tokens: number;
  unmatched: number;
  /** Cores used by each process while the phase ran. */
  cpu: Record<string, number>;
  /** CPU-seconds the worker used per 1,000 streamed tokens. */
  workerCpuPer1000Tokens: number;
  /** Events Queries the bridge's readers made per second while the phase ran. */
  queriesPerSec: number;
  /** Medians of the latency's parts. */
  split: Split;
  /** Median latency of each quarter of the run's chunks (1st..4th): rising means a backlog. */
  latencyByQuarter: number[];
}

/** The unique tokens (`<tag:00042>`) in a delta's text. */
const tokensIn = (content: string) => content.match(/<[^<>]+>/g) ?? [];

/** For every token in a STEP_DELTA in the run's publish signals: when the server accepted the signal, and when the
 * workflow task that handled it completed. */
function signalTimes(history: History): Map<string, { signalAt: number; appliedAt: number }> {
  const out = new Map<string, { signalAt: number; appliedAt: number }>();
  const pending: { contents: string[]; signalAt: number }[] = [];
  for (const e of history.events ?? []) {
    const signal = e.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName === 'publish') {
      const data = signal.input?.payloads?.[0]?.data;
      if (!data) continue;
      const batch = JSON.parse(Buffer.from(data).toString('utf8')) as {
        events: { type: string; delta?: { content?: string } }[];
      };
      pending.push({
        contents: batch.events.flatMap((ev) => tokensIn(ev.delta?.content ?? '')),
        signalAt: eventTime(e),
      });
    } else if (e.workflowTaskCompletedEventAttributes && pending.length) {
      for (const p of pending.splice(0))
        for (const c of p.contents) out.set(c, { signalAt: p.signalAt, appliedAt: eventTime(e) });
    }
  }
  return out;
}

/** Where a phase's runs go: the bench worker and bridge (deltas by signal), or one serve process (the live lane). */
interface Target {
  url: string;
  pids: Record<string, number>;
  agio?: AgioClient;
}

async function streamOne(
  env: BenchEnv,
  target: Target,
  tag: string,
  chunks: number,
  intervalMs: number,
  written: Map<string, number>,
): Promise<RunSample> {
  const url = target.url;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  env.gates.set(tag, gate);
  const opener = setTimeout(() => open(), 15_000); // never hold the model forever
  try {
    const run = await env.start({ steps: 1, tag, stream: { chunks, intervalMs } }, {}, target.agio);
    const latencies: number[] = [];
    const received: { content: string; writtenAt: number; receivedAt: number }[] = [];
    let unmatched = 0;
    let deltas = 0;
    await readSse(`${url}/runs/${run.runId}/events`, {
      token: BENCH_TOKEN,
      timeoutMs: 600_000,
      onEvent: (frame) => {
        const receivedAt = Date.now();
        open(); // the SSE client is connected: let the model answer
        if (frame.event !== 'STEP_DELTA') return;
        const content = (JSON.parse(frame.data) as { delta?: { content?: string } }).delta?.content;
        if (!content) return;
        deltas++;
        for (const token of tokensIn(content)) {
          const at = written.get(token);
          if (at === undefined) unmatched++;
          else {
            latencies.push(receivedAt - at);
            received.push({ content: token, writtenAt: at, receivedAt });
          }
        }
      },
    });
    await run.result();
    const history = await run.workflow.fetchHistory();
    const counts = countByType(history);
    const times = signalTimes(history);
    const splits = received.flatMap(({ content, writtenAt, receivedAt }) => {
      const t = times.get(content);
      return t
        ? [{ publishMs: t.signalAt - writtenAt, applyMs: t.appliedAt - t.signalAt, readMs: receivedAt - t.appliedAt }]
        : [];
    });
    return {
      runId: run.runId,
      latencies,
      splits,
      unmatched,
      events: history.events?.length ?? 0,
      signals: counts.WorkflowExecutionSignaled ?? 0,
      deltas,
    };
  } finally {
    clearTimeout(opener);
    env.gates.delete(tag);
  }
}

async function phase(
  env: BenchEnv,
  target: Target,
  name: string,
  concurrency: number,
  repeats: number,
  chunks: number,
  intervalMs: number,
): Promise<Phase> {
  const written = new Map<string, number>();
  env.model.onChunk = ({ text, writtenAt }) => {
    if (text) written.set(text, writtenAt);
  };
  const runs: RunSample[] = [];
  const pids: Record<string, number> = { ...target.pids, temporal: env.temporal.pid };
  const queries0 = await bridgeQueries(target.url);
  const cpu0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const self0 = process.cpuUsage();
  const t0 = Date.now();
  try {
    for (let r = 0; r < repeats; r++) {
      runs.push(
        ...(await Promise.all(
          Array.from({ length: concurrency }, (_, i) =>
            streamOne(env, target, `${name}${r}-${String(i).padStart(3, '0')}`, chunks, intervalMs, written),
          ),
        )),
      );
      await sleep(200);
    }
  } finally {
    env.model.onChunk = undefined;
  }
  const secs = (Date.now() - t0) / 1000;
  const queriesPerSec = ((await bridgeQueries(target.url)) - queries0) / secs;
  const selfCpu = process.cpuUsage(self0);
  const cpu = {
    ...Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, (cpuSeconds(pid) - cpu0[k]) / secs])),
    bench: (selfCpu.user + selfCpu.system) / 1e6 / secs,
  };
  const all = runs.flatMap((r) => r.latencies);
  const quarter = (q: number) =>
    runs.flatMap((r) =>
      r.latencies.slice(Math.floor((q * r.latencies.length) / 4), Math.floor(((q + 1) * r.latencies.length) / 4)),
    );
  const tokens = runs.length * chunks;
  const workerCpu = cpuSeconds(pids.worker) - cpu0.worker;
  // The reference: as many unstreamed 1-step runs at once on the same lane, each with an SSE client too. A reader's
  // events Query that reaches a run while one of its workflow tasks is in flight makes the server add a workflow task
  // (3 events) when that one completes; under load that happens with or without streaming, so it is not what
  // streaming adds. (50 streaming runs with no reader have exactly the history of an unstreamed run.)
  const plain = await Promise.all(
    Array.from({ length: concurrency }, async (_, i) => {
      const run = await env.start({ steps: 1, tag: `${name}-plain-${i}` }, {}, target.agio);
      await readSse(`${target.url}/runs/${run.runId}/events`, { token: BENCH_TOKEN, timeoutMs: 120_000 });
      return (await run.workflow.fetchHistory()).events?.length ?? 0;
    }),
  );
  const plainEvents = plain.reduce((a, b) => a + b, 0) / concurrency;
  const result: Phase = {
    concurrency,
    plainEvents,
    addedEventsPer1000Tokens: ((runs.reduce((n, r) => n + r.events, 0) / runs.length - plainEvents) / chunks) * 1000,
    runs,
    latency: summarize(all),
    eventsPer1000Tokens: (runs.reduce((n, r) => n + r.events, 0) / tokens) * 1000,
    signalsPer1000Tokens: (runs.reduce((n, r) => n + r.signals, 0) / tokens) * 1000,
    deltasPer1000Tokens: (runs.reduce((n, r) => n + r.deltas, 0) / tokens) * 1000,
    unmatched: runs.reduce((n, r) => n + r.unmatched, 0),
    cpu,
    workerCpuPer1000Tokens: (workerCpu / tokens) * 1000,
    queriesPerSec,
    split: {
      publishMs: summarize(runs.flatMap((r) => r.splits.map((x) => x.publishMs))).median,
      applyMs: summarize(runs.flatMap((r) => r.splits.map((x) => x.applyMs))).median,
      readMs: summarize(runs.flatMap((r) => r.splits.map((x) => x.readMs))).median,
    },
    latencyByQuarter: [0, 1, 2, 3].map((q) => summarize(quarter(q)).median),
  };
  env.log(
    `B2 ${name}: ${concurrency} concurrent × ${repeats}: ${all.length}/${tokens} chunks matched, p50 ${result.latency.median} ms, p99 ${result.latency.p99} ms, ${result.eventsPer1000Tokens.toFixed(0)} history events / 1000 tokens`,
  );
  return result;
}

/** The rows of one lane's phases. */
function phaseRows(lane: string, phases: Phase[], chunks: number): Row[] {
  const rows: Row[] = [];
  for (const p of phases) {
    rows.push({
      metric: `${lane}: chunk → SSE latency, ${p.concurrency} concurrent run${p.concurrency > 1 ? 's' : ''}`,
      value: p.latency.median,
      p99: p.latency.p99,
      unit: `ms (n=${p.latency.n} chunks, max ${p.latency.max}; medians by quarter of the stream ${p.latencyByQuarter.map((q) => q.toFixed(0)).join('/')})`,
    });
    if (p.runs.some((r) => r.splits.length))
      rows.push({
        metric: '  split: publish / workflow task / read (medians)',
        value: p.split.publishMs,
        unit: `ms: ${p.split.publishMs.toFixed(0)} / ${p.split.applyMs.toFixed(0)} / ${p.split.readMs.toFixed(0)} (chunk → signal accepted → WFT completed → SSE)`,
      });
    rows.push({
      metric: `  CPU meanwhile: worker / Temporal / bridge / bench`,
      value: p.cpu.worker,
      unit: `cores: ${[p.cpu.worker, p.cpu.temporal, p.cpu.bridge, p.cpu.bench].map((c) => c.toFixed(2)).join(' / ')}${p.cpu.worker === p.cpu.bridge ? ' (worker and bridge: one process)' : ''}`,
    });
    rows.push({
      metric: '  worker CPU per 1000 tokens',
      value: p.workerCpuPer1000Tokens,
      unit: `CPU-seconds (model activity, publishing, workflow tasks, events Queries${p.cpu.worker === p.cpu.bridge ? ', and the bridge' : ''})`,
    });
    rows.push({
      metric: '  events Queries of the bridge',
      value: p.queriesPerSec,
      unit: `Queries / s (${(p.queriesPerSec / p.concurrency).toFixed(1)} per stream)`,
    });
  }
  for (const p of phases) {
    rows.push(
      {
        metric: `${lane}: history events / 1000 tokens, ${p.concurrency} concurrent`,
        value: p.eventsPer1000Tokens,
        unit: `events (whole 1-step run, ${chunks} tokens)`,
      },
      {
        metric: `  of which added by streaming`,
        value: p.addedEventsPer1000Tokens!,
        unit: `events (run minus the ${p.plainEvents.toFixed(1)} events of an unstreamed 1-step run with its SSE client, at the same concurrency on the same lane)`,
      },
      { metric: `  publish signals / 1000 tokens`, value: p.signalsPer1000Tokens, unit: 'WorkflowExecutionSignaled' },
      { metric: `  STEP_DELTA events / 1000 tokens`, value: p.deltasPer1000Tokens, unit: 'SSE frames' },
    );
  }
  return rows;
}

export const b2: Benchmark = {
  id: 'B2',
  title: 'stream latency: model chunk → SSE client',
  async run(env: BenchEnv) {
    const chunks = env.quick ? 30 : 200;
    const intervalMs = 10;
    const bridge = await env.bridgeService();
    const signalLane: Target = { url: bridge.url, pids: { worker: env.worker.pid, bridge: bridge.pid } };
    // Warm-up: the bridge's first reader, the first streamed step.
    await phase(env, signalLane, 'w', 1, 1, 20, intervalMs);
    // The same 1-step run without streamed tokens: what a run costs in history anyway.
    const plain = await env.run({ steps: 1, tag: 'b2-plain' });
    const plainEvents = (await plain.handle.workflow.fetchHistory()).events?.length ?? 0;
    const levels = [
      [1, env.quick ? 1 : 3],
      [env.quick ? 3 : 10, 1],
      [env.quick ? 5 : 50, 1],
    ] as const;
    const phases: Phase[] = [];
    for (const [i, [concurrency, repeats]] of levels.entries())
      phases.push(await phase(env, signalLane, 'abc'[i], concurrency, repeats, chunks, intervalMs));
    // The live lane: worker and bridge in one process (as `agio serve`), deltas never in a workflow's history.
    const serve = await env.serveService();
    const liveLane: Target = { url: serve.url, pids: { worker: serve.pid, bridge: serve.pid }, agio: serve.agio };
    await phase(env, liveLane, 'lw', 1, 1, 20, intervalMs);
    const livePhases: Phase[] = [];
    for (const [i, [concurrency, repeats]] of levels.entries())
      livePhases.push(await phase(env, liveLane, `l${'abc'[i]}`, concurrency, repeats, chunks, intervalMs));
    // The live lane across processes: a worker and a bridge of their own, deltas on NATS JetStream.
    const natsPair = await env.natsService();
    const natsLane: Target = {
      url: natsPair.bridge.url,
      pids: { worker: natsPair.worker.pid, bridge: natsPair.bridge.pid },
      agio: natsPair.agio,
    };
    await phase(env, natsLane, 'nw', 1, 1, 20, intervalMs);
    const natsPhases: Phase[] = [];
    for (const [i, [concurrency, repeats]] of levels.entries())
      natsPhases.push(await phase(env, natsLane, `n${'abc'[i]}`, concurrency, repeats, chunks, intervalMs));
    const rows = [
      ...phaseRows('live lane (serve)', livePhases, chunks),
      ...phaseRows('live lane (NATS, separate worker and bridge)', natsPhases, chunks),
      ...phaseRows('signal lane (separate worker and bridge)', phases, chunks),
    ];
    const notes = [
      `${chunks} chunks per run, ${intervalMs} ms apart (≈${(1000 / intervalMs).toFixed(0)} tokens/s per run)`,
      'live lane (serve): a worker and a bridge in one process sharing an in-process lane (what `agio serve` runs); each chunk is handed to the bridge as it comes',
      'live lane (NATS): a worker and a bridge in separate processes; each chunk is a JetStream publish the bridge consumes',
      'signal lane: the worker batches deltas into one publish signal per ≤ 100 ms (the first at once); the bridge polls the events Query (20–250 ms back-off while the run is quiet, up to 1 s after 10 s without events)',
      ...[...phases, ...livePhases, ...natsPhases]
        .filter((p) => p.unmatched)
        .map((p) => `${p.unmatched} deltas could not be matched to a written chunk at concurrency ${p.concurrency}`),
    ];
    const dataOf = (ps: Phase[]) =>
      ps.map((p) => ({
        ...p,
        runs: p.runs.map((r) => ({ ...r, latencies: undefined, splits: undefined, latency: summarize(r.latencies) })),
        allLatencies: p.runs.flatMap((r) => r.latencies),
      }));
    return {
      status: 'ok',
      rows,
      notes,
      data: {
        chunks,
        intervalMs,
        plainRunEvents: plainEvents,
        phases: dataOf(phases),
        livePhases: dataOf(livePhases),
        natsPhases: dataOf(natsPhases),
      },
    };
  },
};
