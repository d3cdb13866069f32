// `npm run bench [-- B1 B3 PEER …] [--quick]`: starts one Temporal dev server, one scripted model server (here,
// in the measuring process) and one Agio worker in its own process, runs the selected benchmarks (all by
// default; PEER runs @temporalio/openai-agents on the same servers, from its own package), prints a table and
// writes bench/results/<timestamp>.json. Never part of `npm test`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { b1 } from './b1-overhead';
import { b2 } from './b2-stream-latency';
import { b3 } from './b3-history-growth';
import { b4 } from './b4-recovery';
import { b5 } from './b5-throughput';
import { b6 } from './b6-memory';
import { b7 } from './b7-actions';
import { peer } from './peer';
import { settings } from './settings';
import { renderTable, type BenchResult, type Benchmark } from './report';
import { BenchEnv, load1 } from './setup';

// PEER right after B1–B3, whose workloads it repeats, so both see the same machine state.
const BENCHMARKS: Benchmark[] = [b1, b2, b3, peer, b4, b5, b6, b7, settings];

function machine() {
  return {
    nproc: os.availableParallelism?.() ?? os.cpus().length,
    cpu: os.cpus()[0]?.model,
    memTotalMb: Math.round(os.totalmem() / 2 ** 20),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick') || process.env.BENCH_QUICK === '1';
  const wanted = args.filter((a) => !a.startsWith('--')).map((a) => a.toUpperCase());
  const known = BENCHMARKS.map((b) => b.id);
  const unknown = wanted.filter((id) => !known.includes(id));
  if (unknown.length || args.includes('--help')) {
    console.error(
      `usage: npm run bench [-- ${known.join(' ')}] [--quick]${unknown.length ? `\nunknown benchmark(s): ${unknown.join(', ')}` : ''}`,
    );
    process.exit(unknown.length ? 2 : 0);
  }
  const selected = BENCHMARKS.filter((b) => wanted.length === 0 || wanted.includes(b.id));
  const log = (msg: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);
  const startedAt = new Date();
  const loadAtStart = os.loadavg();
  log(
    `bench: ${selected.map((b) => b.id).join(' ') || '(none)'}${quick ? ' (quick)' : ''}; load average ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}`,
  );

  const results: BenchResult[] = [];
  // Before the servers start (and before any load): e.g. installing the peer's own package.
  const prepareErrors = new Map<string, Error>();
  for (const bench of selected) {
    try {
      await bench.prepare?.(log);
    } catch (err) {
      log(`${bench.id} could not be prepared: ${(err as Error).message}`);
      prepareErrors.set(bench.id, err as Error);
    }
  }
  // The machine may be shared: keep the 1-minute load average over the whole run (our own load included).
  const loadSamples: { at: string; load1: number }[] = [];
  const sampler = setInterval(() => loadSamples.push({ at: new Date().toISOString(), load1: load1() }), 10_000);
  const env = selected.length ? await BenchEnv.create({ quick, log }) : undefined;
  const shutdown = () => {
    void env?.close().finally(() => process.exit(130));
  };
  process.once('SIGINT', shutdown);
  try {
    for (const bench of selected) {
      const before = load1();
      const t0 = Date.now();
      const prepareError = prepareErrors.get(bench.id);
      if (prepareError) {
        results.push({
          id: bench.id,
          title: bench.title,
          status: 'failed',
          rows: [],
          notes: [],
          error: `not prepared: ${prepareError.message}`,
          durationMs: 0,
          load: { before, after: before },
        });
        continue;
      }
      log(`${bench.id}: ${bench.title}`);
      try {
        const r = await bench.run(env!);
        results.push({
          id: bench.id,
          title: bench.title,
          ...r,
          durationMs: Date.now() - t0,
          load: { before, after: load1() },
        });
      } catch (err) {
        log(`${bench.id} failed: ${(err as Error).stack ?? String(err)}`);
        results.push({
          id: bench.id,
          title: bench.title,
          status: 'failed',
          rows: [],
          notes: [],
          error: (err as Error).message,
          durationMs: Date.now() - t0,
          load: { before, after: load1() },
        });
        await env!.ensureWorker();
      }
    }
  } finally {
    clearInterval(sampler);
    await env?.close();
  }

  const info = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    quick,
    machine: machine(),
    loadAverage: {
      atStart: loadAtStart,
      atEnd: os.loadavg(),
      max1: Math.max(loadAtStart[0], ...loadSamples.map((l) => l.load1)),
      samples: loadSamples,
    },
  };
  console.log(
    `\nAgio benchmarks — ${info.machine.nproc} CPUs (${info.machine.cpu}), ${info.machine.memTotalMb} MB, node ${info.machine.node}; 1-min load ${loadAtStart[0].toFixed(2)} at start, max ${info.loadAverage.max1.toFixed(2)} during, ${info.loadAverage.atEnd[0].toFixed(2)} at end (own load included)${quick ? '; QUICK (not representative)' : ''}\n`,
  );
  console.log(renderTable(results));
  const dir = path.join(__dirname, 'results');
  await fs.promises.mkdir(dir, { recursive: true });
  const file = path.join(dir, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  await fs.promises.writeFile(file, JSON.stringify({ ...info, results }, null, 2) + '\n');
  console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
