// PEER × B2 — stream latency of @temporalio/openai-agents: from the scripted model writing a token chunk (its
// `onChunk` writtenAt, in this process) to the peer's subscriber process receiving the `output_text_delta`
// event that carries it (Date.now() there: the same system clock). The path: model → the streaming model
// activity → WorkflowStreamClient publish signal (batched every 100 ms) → the workflow's WorkflowStream log →
// the subscriber's polling Update. With 1, 10 and 50 concurrent streaming runs, as in B2; plus history events,
// publish signals and poll Updates per 1,000 streamed tokens.
import { temporal } from '@temporalio/proto';
import type { PeerEnv } from './peer-env';
import type { BenchResult, Row } from './report';
import { countByType, cpuSeconds, eventTime, sleep, type BenchEnv, type History } from './setup';
import { summarize, type Summary } from './stats';

const PUBLISH_SIGNAL = '__temporal_workflow_stream_publish';

interface RunSample {
  latencies: number[];
  splits: { publishMs: number; applyMs: number; readMs: number }[];
  unmatched: number;
  /** Written tokens the subscriber never received. */
  missing: number;
  events: number;
  signals: number;
  polls: number;
  /** Why the run could not be measured, or why its subscriber could not tell the workflow it was done. */
  error?: string;
}

/** For every text delta in the run's publish signals: when the server accepted the signal, and when the
 * workflow task that appended it to the WorkflowStream log completed. */
function signalTimes(history: History): Map<string, { signalAt: number; appliedAt: number }> {
  const out = new Map<string, { signalAt: number; appliedAt: number }>();
  const pending: { deltas: string[]; signalAt: number }[] = [];
  for (const e of history.events ?? []) {
    const signal = e.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName === PUBLISH_SIGNAL) {
      const data = signal.input?.payloads?.[0]?.data;
      if (!data) continue;
      const batch = JSON.parse(Buffer.from(data).toString('utf8')) as { items: { data: string }[] };
      const deltas = batch.items.flatMap((item) => {
        const payload = temporal.api.common.v1.Payload.decode(Buffer.from(item.data, 'base64'));
        const event = JSON.parse(Buffer.from(payload.data ?? []).toString('utf8')) as { type?: string; delta?: string };
        return event.type === 'output_text_delta' && event.delta ? [event.delta] : [];
      });
      pending.push({ deltas, signalAt: eventTime(e) });
    } else if (e.workflowTaskCompletedEventAttributes && pending.length) {
      for (const p of pending.splice(0)) for (const d of p.deltas) out.set(d, { signalAt: p.signalAt, appliedAt: eventTime(e) });
    }
  }
  return out;
}

async function streamOne(env: BenchEnv, peer: PeerEnv, tag: string, chunks: number, intervalMs: number, written: Map<string, number>, drain = true): Promise<RunSample> {
  let open!: () => void;
  env.gates.set(
    tag,
    new Promise<void>((resolve) => (open = resolve)),
  );
  const opener = setTimeout(() => open(), 15_000); // never hold the model forever
  try {
    const handle = await peer.start({ steps: 1, tag, ...(chunks ? { stream: { chunks, intervalMs } } : {}) }, true, drain);
    const sub = peer.subscribe(handle.workflowId, tag, drain);
    void sub.opened.then(() => open()); // the subscriber is attached: let the model answer
    const [{ deltas, signalError }] = await Promise.all([sub.done, handle.result()]);
    const history = await handle.fetchHistory();
    const times = signalTimes(history);
    const latencies: number[] = [];
    const splits: RunSample['splits'] = [];
    let unmatched = 0;
    for (const [content, receivedAt] of deltas) {
      const at = written.get(content);
      if (at === undefined) {
        unmatched++;
        continue;
      }
      latencies.push(receivedAt - at);
      const t = times.get(content);
      if (t) splits.push({ publishMs: t.signalAt - at, applyMs: t.appliedAt - t.signalAt, readMs: receivedAt - t.appliedAt });
    }
    const counts = countByType(history);
    return { latencies, splits, unmatched, missing: Math.max(0, chunks - latencies.length), events: history.events?.length ?? 0, signals: counts.WorkflowExecutionSignaled ?? 0, polls: counts.WorkflowExecutionUpdateAccepted ?? 0, ...(signalError ? { error: `done signal: ${signalError}` } : {}) };
  } catch (err) {
    // One broken run must not lose the phase: count it.
    return { latencies: [], splits: [], unmatched: 0, missing: chunks, events: 0, signals: 0, polls: 0, error: (err as Error).message };
  } finally {
    clearTimeout(opener);
    env.gates.delete(tag);
  }
}

interface Phase {
  concurrency: number;
  runs: RunSample[];
  latency: Summary;
  latencyByQuarter: number[];
  split: { publishMs: number; applyMs: number; readMs: number };
  cpu: Record<string, number>;
  per1000: { events: number; signals: number; polls: number };
  missing: number;
  unmatched: number;
  /** Runs that could not be measured (no history), and runs whose subscriber came too late for the drain. */
  failed: number;
  lateSubscribers: number;
  errors: string[];
  addedEventsPer1000Tokens?: number;
}

async function phase(env: BenchEnv, peer: PeerEnv, name: string, concurrency: number, repeats: number, chunks: number, intervalMs: number): Promise<Phase> {
  const written = new Map<string, number>();
  env.model.onChunk = ({ text, writtenAt }) => {
    if (text) written.set(text, writtenAt);
  };
  const pids = { worker: peer.worker.pid, temporal: env.temporal.pid, subscriber: peer.subscriber.pid };
  const cpu0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const self0 = process.cpuUsage();
  const t0 = Date.now();
  const runs: RunSample[] = [];
  try {
    for (let r = 0; r < repeats; r++) {
      runs.push(...(await Promise.all(Array.from({ length: concurrency }, (_, i) => streamOne(env, peer, `p${name}${r}-${String(i).padStart(3, '0')}`, chunks, intervalMs, written)))));
      await sleep(200);
    }
  } finally {
    env.model.onChunk = undefined;
  }
  const secs = (Date.now() - t0) / 1000;
  const selfCpu = process.cpuUsage(self0);
  const cpu = { ...Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, (cpuSeconds(pid) - cpu0[k]) / secs])), bench: (selfCpu.user + selfCpu.system) / 1e6 / secs };
  const all = runs.flatMap((r) => r.latencies);
  const quarter = (q: number) => runs.flatMap((r) => r.latencies.slice(Math.floor((q * r.latencies.length) / 4), Math.floor(((q + 1) * r.latencies.length) / 4)));
  const measured = runs.filter((r) => r.events > 0);
  const tokens = measured.length * chunks;
  const sum = (f: (r: RunSample) => number) => measured.reduce((n, r) => n + f(r), 0);
  const split = (f: (s: RunSample['splits'][number]) => number) => summarize(runs.flatMap((r) => r.splits.map(f))).median;
  const result: Phase = {
    concurrency,
    runs,
    latency: summarize(all),
    latencyByQuarter: [0, 1, 2, 3].map((q) => summarize(quarter(q)).median),
    split: { publishMs: split((s) => s.publishMs), applyMs: split((s) => s.applyMs), readMs: split((s) => s.readMs) },
    cpu,
    per1000: { events: (sum((r) => r.events) / tokens) * 1000, signals: (sum((r) => r.signals) / tokens) * 1000, polls: (sum((r) => r.polls) / tokens) * 1000 },
    missing: sum((r) => r.missing),
    unmatched: sum((r) => r.unmatched),
    failed: runs.length - measured.length,
    lateSubscribers: measured.filter((r) => r.error).length,
    errors: [...new Set(runs.flatMap((r) => (r.error ? [r.error] : [])))],
  };
  const failures = result.failed || result.lateSubscribers ? `; ${result.failed} runs failed, ${result.lateSubscribers} subscribers too late for the drain: ${result.errors.join(' | ')}` : '';
  env.log(`PEER B2: ${concurrency} concurrent × ${repeats}: ${all.length}/${tokens} chunks received, p50 ${result.latency.median} ms, p99 ${result.latency.p99} ms${tokens ? `, ${result.per1000.events.toFixed(0)} history events / 1000 tokens` : ''}${failures}`);
  return result;
}

export async function peerB2(env: BenchEnv, peer: PeerEnv): Promise<Pick<BenchResult, 'rows' | 'notes' | 'data'>> {
  const chunks = env.quick ? 30 : 200;
  const intervalMs = 10;
  // Warm-up: the subscriber's first stream, the first streamed step.
  await phase(env, peer, 'w', 1, 1, 20, intervalMs);
  // The same 1-step streaming run, followed the same way, with a short answer (6 chunks): what a run costs anyway.
  const plain = await phase(env, peer, 'plain', 1, 1, 0, intervalMs);
  const plainEvents = plain.runs[0].events;
  const phases = [
    await phase(env, peer, 'a', 1, env.quick ? 1 : 3, chunks, intervalMs),
    await phase(env, peer, 'b', env.quick ? 3 : 10, 1, chunks, intervalMs),
    await phase(env, peer, 'c', env.quick ? 5 : 50, 1, chunks, intervalMs),
  ];
  for (const p of phases) {
    const measured = p.runs.filter((r) => r.events > 0);
    p.addedEventsPer1000Tokens = ((measured.reduce((n, r) => n + r.events, 0) / measured.length - plainEvents) / chunks) * 1000;
  }
  // What the package does without that drain: the workflow returns right after the agent.
  const written = new Map<string, number>();
  env.model.onChunk = ({ text, writtenAt }) => {
    if (text) written.set(text, writtenAt);
  };
  const undrained = await streamOne(env, peer, 'pnodrain', chunks, intervalMs, written, false).finally(() => (env.model.onChunk = undefined));

  const rows: Row[] = [];
  for (const p of phases) {
    rows.push({ metric: `B2 chunk → client latency, ${p.concurrency} concurrent run${p.concurrency > 1 ? 's' : ''}`, value: p.latency.median, p99: p.latency.p99, unit: `ms (n=${p.latency.n}${p.missing ? ` of ${p.latency.n + p.missing}` : ''} chunks, max ${p.latency.max}; medians by quarter of the stream ${p.latencyByQuarter.map((q) => q.toFixed(0)).join('/')})` });
    rows.push({ metric: '  B2 split: publish / workflow task / read (medians)', value: p.split.publishMs, unit: `ms: ${[p.split.publishMs, p.split.applyMs, p.split.readMs].map((x) => x.toFixed(0)).join(' / ')} (chunk → signal accepted → WFT completed → subscriber)` });
    rows.push({ metric: '  B2 CPU meanwhile: peer worker / Temporal / subscriber / bench', value: p.cpu.worker, unit: `cores: ${[p.cpu.worker, p.cpu.temporal, p.cpu.subscriber, p.cpu.bench].map((c) => c.toFixed(2)).join(' / ')}` });
  }
  for (const p of phases) {
    rows.push(
      { metric: `B2 history events / 1000 tokens, ${p.concurrency} concurrent`, value: p.per1000.events, unit: `events (whole 1-step run, ${chunks} tokens)` },
      { metric: '  B2 of which added by streaming', value: p.addedEventsPer1000Tokens!, unit: `events (run minus a ${plainEvents}-event run with a 24-character answer)` },
      { metric: `B2 publish signals / 1000 tokens, ${p.concurrency} concurrent`, value: p.per1000.signals, unit: 'WorkflowExecutionSignaled' },
      { metric: `B2 poll Updates / 1000 tokens, ${p.concurrency} concurrent`, value: p.per1000.polls, unit: 'WorkflowExecutionUpdateAccepted (each also adds UpdateCompleted)' },
    );
  }
  rows.push({ metric: 'B2 tokens the subscriber never got, no drain', value: undrained.missing, unit: `of ${chunks} tokens (1 run whose workflow returns right after the agent)` });
  const lost = phases.filter((p) => p.missing || p.unmatched || p.failed || p.lateSubscribers);
  return {
    rows,
    notes: [
      `B2: ${chunks} chunks per run, ${intervalMs} ms apart; the streaming model activity publishes every raw model event (a \`model\` chunk event and an \`output_text_delta\` per token) through WorkflowStreamClient, batched every 100 ms (streamingBatchInterval; the package's default is 2 s); the subscriber process polls with WorkflowStreamClient.subscribe (an Update per poll, 100 ms cooldown); there is no HTTP/SSE hop (Agio's figures include its bridge)`,
      `B2: the peer workflow publishes \`run_finished\` after the agent and waits for the subscriber's signal before it returns (a drain the package does not provide): without it the subscriber lost ${undrained.missing} of ${chunks} tokens, because a completed workflow's WorkflowStream can no longer be polled`,
      ...lost.map((p) => `B2: at concurrency ${p.concurrency}, ${p.missing} tokens were not received, ${p.unmatched} deltas could not be matched to a written chunk, ${p.failed} runs failed and ${p.lateSubscribers} subscribers read \`run_finished\` after the workflow had stopped waiting (60 s)${p.errors.length ? `: ${p.errors.join(' | ')}` : ''}`),
    ],
    data: { chunks, intervalMs, plainRunEvents: plainEvents, undrained: { ...undrained, latencies: undefined, splits: undefined }, phases: phases.map((p) => ({ ...p, runs: p.runs.map((r) => ({ ...r, latencies: undefined, splits: undefined, latency: summarize(r.latencies) })), allLatencies: p.runs.flatMap((r) => r.latencies) })) },
  };
}
