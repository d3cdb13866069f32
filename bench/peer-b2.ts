// PEER × B2 — stream latency of @temporalio/openai-agents: from the scripted model writing a token chunk (its
// `onChunk` writtenAt, in this process) to the peer's subscriber process receiving the `output_text_delta`
// event that carries it (Date.now() there: the same system clock). The path: model → the streaming model
// activity → WorkflowStreamClient publish signal (batched every 100 ms) → the workflow's WorkflowStream log →
// the subscriber's polling Update. With 1, 10 and 50 concurrent streaming runs, as in B2 (a phase still open
// after 3 minutes is cut: its runs are terminated and the peer worker restarted); plus history events, publish
// signals and poll Updates per 1,000 streamed tokens, and what the run's tail loses without a drain.
import type { PeerEnv } from './peer-env';
import type { BenchResult, Row } from './report';
import { streamOne, type PeerHandle, type RunSample } from './peer-b2-run';
import { cpuSeconds, sleep, type BenchEnv } from './setup';
import { summarize, type Summary } from './stats';

interface Phase {
  concurrency: number;
  runs: RunSample[];
  /** Runs still open at the phase deadline were terminated (the worker was then restarted). */
  timedOut: boolean;
  durationMs: number;
  latency: Summary;
  latencyByQuarter: number[];
  split: { publishMs: number; applyMs: number; readMs: number };
  cpu: Record<string, number>;
  /** CPU-seconds the peer worker used per 1,000 tokens the model wrote. */
  workerCpuPer1000Tokens: number;
  per1000: { events: number; signals: number; polls: number };
  missing: number;
  unmatched: number;
  completed: number;
  wftTimeouts: number;
  errors: string[];
  addedEventsPer1000Tokens?: number;
}

async function phase(
  env: BenchEnv,
  peer: PeerEnv,
  name: string,
  concurrency: number,
  repeats: number,
  chunks: number,
  intervalMs: number,
): Promise<Phase> {
  const deadlineMs = env.quick ? 60_000 : 180_000;
  const written = new Map<string, number>();
  env.model.onChunk = ({ text, writtenAt }) => {
    if (text) written.set(text, writtenAt);
  };
  const pids = { worker: peer.worker.pid, temporal: env.temporal.pid, subscriber: peer.subscriber.pid };
  const cpu0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const self0 = process.cpuUsage();
  const t0 = Date.now();
  const runs: RunSample[] = [];
  const started: PeerHandle[] = [];
  let timedOut = false;
  let cpuSecs: Record<string, number> = {};
  try {
    const all = (async () => {
      for (let r = 0; r < repeats && !timedOut; r++) {
        runs.push(
          ...(await Promise.all(
            Array.from({ length: concurrency }, (_, i) =>
              streamOne(
                env,
                peer,
                `p${name}${r}-${String(i).padStart(3, '0')}`,
                chunks,
                intervalMs,
                written,
                true,
                started,
              ),
            ),
          )),
        );
        await sleep(200);
      }
    })();
    let timer: NodeJS.Timeout | undefined;
    timedOut = await Promise.race([
      all.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), deadlineMs))),
    ]);
    clearTimeout(timer);
    cpuSecs = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid) - cpu0[k]]));
    if (timedOut) {
      env.log(
        `PEER B2: ${concurrency} concurrent: not done after ${deadlineMs / 1000} s; terminating the phase's runs and restarting the peer worker`,
      );
      await Promise.all(started.map((h) => h.terminate('bench: phase deadline').catch(() => undefined)));
      await Promise.race([all, sleep(60_000)]);
    }
  } finally {
    env.model.onChunk = undefined;
  }
  const durationMs = Date.now() - t0;
  const secs = (timedOut ? deadlineMs : durationMs) / 1000;
  const selfCpu = process.cpuUsage(self0);
  const cpu = {
    ...Object.fromEntries(Object.entries(cpuSecs).map(([k, c]) => [k, c / secs])),
    bench: (selfCpu.user + selfCpu.system) / 1e6 / (durationMs / 1000),
  };
  if (timedOut) await peer.restart();
  // Latencies of every token received, also from runs terminated at the deadline; counts only from completed runs.
  const measured = runs.filter((r) => r.completed);
  const all = runs.flatMap((r) => r.latencies);
  const quarter = (q: number) =>
    runs.flatMap((r) =>
      r.latencies.slice(Math.floor((q * r.latencies.length) / 4), Math.floor(((q + 1) * r.latencies.length) / 4)),
    );
  const tokens = measured.length * chunks;
  const sum = (f: (r: RunSample) => number) => measured.reduce((n, r) => n + f(r), 0);
  const split = (f: (s: RunSample['splits'][number]) => number) =>
    summarize(runs.flatMap((r) => r.splits.map(f))).median;
  const result: Phase = {
    concurrency,
    runs,
    timedOut,
    durationMs,
    latency: summarize(all),
    latencyByQuarter: [0, 1, 2, 3].map((q) => summarize(quarter(q)).median),
    split: { publishMs: split((s) => s.publishMs), applyMs: split((s) => s.applyMs), readMs: split((s) => s.readMs) },
    cpu,
    workerCpuPer1000Tokens: (cpuSecs.worker / Math.max(1, written.size)) * 1000,
    per1000: {
      events: (sum((r) => r.events) / tokens) * 1000,
      signals: (sum((r) => r.signals) / tokens) * 1000,
      polls: (sum((r) => r.polls) / tokens) * 1000,
    },
    missing: Math.max(0, (chunks ? written.size : 0) - all.length),
    unmatched: sum((r) => r.unmatched),
    completed: measured.length,
    wftTimeouts: runs.reduce((n, r) => n + r.wftTimeouts, 0),
    errors: [...new Set(runs.flatMap((r) => (r.error ? [r.error.split('\n')[0]] : [])))],
  };
  const trouble =
    result.completed < concurrency * repeats || result.errors.length
      ? `; ${result.completed}/${concurrency * repeats} runs completed, ${result.wftTimeouts} workflow task timeouts${result.errors.length ? `: ${result.errors.join(' | ')}` : ''}`
      : '';
  env.log(
    `PEER B2: ${concurrency} concurrent × ${repeats}: ${all.length}/${chunks ? written.size : 0} chunks received, p50 ${result.latency.median} ms, p99 ${result.latency.p99} ms${tokens ? `, ${result.per1000.events.toFixed(0)} history events / 1000 tokens` : ''}${trouble}`,
  );
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
    const measured = p.runs.filter((r) => r.completed);
    p.addedEventsPer1000Tokens =
      ((measured.reduce((n, r) => n + r.events, 0) / measured.length - plainEvents) / chunks) * 1000;
  }
  // What the package does without that drain: the workflow returns right after the agent.
  const written = new Map<string, number>();
  env.model.onChunk = ({ text, writtenAt }) => {
    if (text) written.set(text, writtenAt);
  };
  const undrained = await streamOne(env, peer, 'pnodrain', chunks, intervalMs, written, false).finally(
    () => (env.model.onChunk = undefined),
  );

  const rows: Row[] = [];
  for (const p of phases) {
    rows.push({
      metric: `B2 chunk → client latency, ${p.concurrency} concurrent run${p.concurrency > 1 ? 's' : ''}`,
      value: p.latency.median,
      p99: p.latency.p99,
      unit: `ms (n=${p.latency.n}${p.missing ? ` of ${p.latency.n + p.missing} written` : ''} chunks, max ${p.latency.max}; medians by quarter of the stream ${p.latencyByQuarter.map((q) => q.toFixed(0)).join('/')})`,
    });
    rows.push({
      metric: '  B2 split: publish / workflow task / read (medians)',
      value: p.split.publishMs,
      unit: `ms: ${[p.split.publishMs, p.split.applyMs, p.split.readMs].map((x) => x.toFixed(0)).join(' / ')} (chunk → signal accepted → WFT completed → subscriber)`,
    });
    rows.push({
      metric: '  B2 CPU meanwhile: peer worker / Temporal / subscriber / bench',
      value: p.cpu.worker,
      unit: `cores: ${[p.cpu.worker, p.cpu.temporal, p.cpu.subscriber, p.cpu.bench].map((c) => c.toFixed(2)).join(' / ')}`,
    });
    rows.push({
      metric: '  B2 peer worker CPU per 1000 tokens',
      value: p.workerCpuPer1000Tokens,
      unit: 'CPU-seconds (model activity, publishing, and the workflow replaying the events in its sandbox)',
    });
    rows.push({
      metric: '  B2 runs completed / workflow task timeouts',
      value: p.completed,
      unit: `of ${p.runs.length} runs${p.timedOut ? ' (the rest terminated at the phase deadline)' : ''}; ${p.wftTimeouts} WorkflowTaskTimedOut; phase took ${(p.durationMs / 1000).toFixed(0)} s`,
    });
  }
  for (const p of phases) {
    rows.push(
      {
        metric: `B2 history events / 1000 tokens, ${p.concurrency} concurrent`,
        value: p.per1000.events,
        unit: `events (whole 1-step run, ${chunks} tokens)`,
      },
      {
        metric: '  B2 of which added by streaming',
        value: p.addedEventsPer1000Tokens!,
        unit: `events (run minus a ${plainEvents}-event run with a 24-character answer)`,
      },
      {
        metric: `B2 publish signals / 1000 tokens, ${p.concurrency} concurrent`,
        value: p.per1000.signals,
        unit: 'WorkflowExecutionSignaled',
      },
      {
        metric: `B2 poll Updates / 1000 tokens, ${p.concurrency} concurrent`,
        value: p.per1000.polls,
        unit: 'WorkflowExecutionUpdateAccepted (each also adds UpdateCompleted)',
      },
    );
  }
  rows.push({
    metric: 'B2 tokens the subscriber never got, no drain',
    value: undrained.missing,
    unit: `of ${chunks} tokens (1 run whose workflow returns right after the agent)`,
  });
  const lost = phases.filter((p) => p.missing || p.unmatched || p.completed < p.runs.length || p.errors.length);
  return {
    rows,
    notes: [
      `B2: ${chunks} chunks per run, ${intervalMs} ms apart; the streaming model activity publishes every raw model event (a \`model\` chunk event and an \`output_text_delta\` per token) through WorkflowStreamClient, batched every 100 ms (streamingBatchInterval; the package's default is 2 s); the subscriber process polls with WorkflowStreamClient.subscribe (an Update per poll, 100 ms cooldown); there is no HTTP/SSE hop (Agio's figures include its bridge)`,
      `B2: the peer workflow publishes \`run_finished\` after the agent and waits for the subscriber's signal before it returns (a drain the package does not provide): without it the subscriber lost ${undrained.missing} of ${chunks} tokens, because a completed workflow's WorkflowStream can no longer be polled`,
      ...lost.map(
        (p) =>
          `B2: at concurrency ${p.concurrency}, ${p.completed} of ${p.runs.length} runs completed${p.timedOut ? ' before the phase deadline (the others were terminated)' : ''}, ${p.wftTimeouts} workflow tasks timed out, ${p.missing} of the tokens the model wrote never reached the subscriber and ${p.unmatched} deltas matched no written chunk${p.errors.length ? `; errors: ${p.errors.join(' | ')}` : ''}`,
      ),
    ],
    data: {
      chunks,
      intervalMs,
      plainRunEvents: plainEvents,
      undrained: { ...undrained, latencies: undefined, splits: undefined },
      phases: phases.map((p) => ({
        ...p,
        runs: p.runs.map((r) => ({ ...r, latencies: undefined, splits: undefined, latency: summarize(r.latencies) })),
        allLatencies: p.runs.flatMap((r) => r.latencies),
      })),
    },
  };
}
