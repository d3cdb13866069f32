// B6 — memory: resident memory of the worker, the Temporal dev server and the bridge with 500 runs parked by
// a pause (cached in the worker, waiting at a safe point), then with 200 SSE clients following 200 of them (one
// upstream reader each in the bridge); plus the CPU those idle streams cost (the bridge polls quiet runs).
import type { Benchmark, Row } from './report';
import { BENCH_TOKEN, bridgeQueries, cpuSeconds, pool, rssMb, sleep, type BenchEnv } from './setup';

/** An SSE connection that only counts bytes, kept open until `close()`. */
async function openSse(url: string): Promise<{ close: () => void; bytes: () => number; ended: Promise<void> }> {
  const abort = new AbortController();
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, accept: 'text/event-stream' },
    signal: abort.signal,
  });
  if (res.status !== 200 || !res.body) throw new Error(`GET ${url} answered ${res.status}`);
  let bytes = 0;
  const reader = res.body.getReader();
  const ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        bytes += value.byteLength;
      }
    } catch {
      // aborted
    }
  })();
  return { close: () => abort.abort(), bytes: () => bytes, ended };
}

function snapshot(env: BenchEnv, bridgePid: number) {
  return { worker: rssMb(env.worker.pid), server: rssMb(env.temporal.pid), bridge: rssMb(bridgePid) };
}

export const b6: Benchmark = {
  id: 'B6',
  title: 'memory: 500 paused runs, 200 SSE clients',
  async run(env: BenchEnv) {
    const runCount = env.quick ? 20 : 500;
    const clientCount = env.quick ? 10 : 200;
    const bridge = await env.bridgeService();
    await sleep(2000);
    const before = snapshot(env, bridge.pid);
    env.log(`B6: before: ${JSON.stringify(before)}`);

    // Start runs and park each at its first safe point (the pause update returns once it is parked).
    const t0 = Date.now();
    const handles = await pool(runCount, 20, async (i) => {
      const handle = await env.start({ steps: 5, tag: `b6-${i}` });
      await handle.pause({ reason: 'bench' });
      return handle;
    });
    const parkMs = Date.now() - t0;
    await sleep(3000);
    const paused = snapshot(env, bridge.pid);
    env.log(`B6: ${runCount} paused runs (parked in ${parkMs} ms): ${JSON.stringify(paused)}`);

    // What the parked runs cost in CPU with nobody reading.
    const cpuOf = () => ({
      worker: cpuSeconds(env.worker.pid),
      server: cpuSeconds(env.temporal.pid),
      bridge: cpuSeconds(bridge.pid),
    });
    const rate = (a: ReturnType<typeof cpuOf>, b: ReturnType<typeof cpuOf>, secs: number) => ({
      worker: (b.worker - a.worker) / secs,
      server: (b.server - a.server) / secs,
      bridge: (b.bridge - a.bridge) / secs,
    });
    const idle0 = cpuOf();
    await sleep(10_000);
    const idleCpu = rate(idle0, cpuOf(), 10);

    // SSE clients, one per run, all idle (the runs are paused).
    const clients = await pool(clientCount, 20, (i) => openSse(`${bridge.url}/runs/${handles[i].runId}/events`));
    await sleep(5000);
    const queries = () => bridgeQueries(bridge.url);
    const cpu0 = cpuOf();
    const q0 = await queries();
    const w0 = Date.now();
    await sleep(10_000);
    const windowSecs = (Date.now() - w0) / 1000;
    const cpu = rate(cpu0, cpuOf(), windowSecs);
    const queriesPerSec = ((await queries()) - q0) / windowSecs;
    const cpuPerQueryMs = ((cpu.worker + cpu.server + cpu.bridge) / queriesPerSec) * 1000;
    const streaming = snapshot(env, bridge.pid);
    env.log(`B6: ${clientCount} SSE clients: ${JSON.stringify(streaming)}, CPU ${JSON.stringify(cpu)}`);

    for (const c of clients) c.close();
    await Promise.all(clients.map((c) => c.ended));
    await pool(handles.length, 20, (i) => handles[i].workflow.terminate('bench done').catch(() => undefined));

    const rows: Row[] = [
      { metric: 'worker RSS, idle', value: before.worker, unit: 'MB' },
      {
        metric: `worker RSS, ${runCount} paused runs`,
        value: paused.worker,
        unit: `MB (+${(((paused.worker - before.worker) * 1024) / runCount).toFixed(0)} KB / run)`,
      },
      { metric: 'Temporal dev server RSS, before', value: before.server, unit: 'MB' },
      {
        metric: `Temporal dev server RSS, ${runCount} paused runs`,
        value: paused.server,
        unit: `MB (+${(((paused.server - before.server) * 1024) / runCount).toFixed(0)} KB / run)`,
      },
      { metric: 'bridge RSS, no clients', value: paused.bridge, unit: 'MB' },
      {
        metric: `bridge RSS, ${clientCount} SSE clients (${clientCount} runs)`,
        value: streaming.bridge,
        unit: `MB (+${(((streaming.bridge - paused.bridge) * 1024) / clientCount).toFixed(0)} KB / client)`,
      },
      {
        metric: `CPU, ${runCount} paused runs, no clients: worker / Temporal / bridge`,
        value: idleCpu.worker,
        unit: `cores: ${[idleCpu.worker, idleCpu.server, idleCpu.bridge].map((c) => c.toFixed(2)).join(' / ')}`,
      },
      {
        metric: `CPU with ${clientCount} idle streams: worker / Temporal / bridge`,
        value: cpu.worker,
        unit: `cores: ${[cpu.worker, cpu.server, cpu.bridge].map((c) => c.toFixed(2)).join(' / ')} (the worker answers the events Queries)`,
      },
      {
        metric: `  events Queries the bridge made, ${clientCount} idle streams`,
        value: queriesPerSec,
        unit: `Queries / s (${(queriesPerSec / clientCount).toFixed(2)} per stream)`,
      },
      { metric: '  CPU per events Query, worker + Temporal + bridge', value: cpuPerQueryMs, unit: 'ms of CPU' },
    ];
    return {
      status: 'ok',
      rows,
      notes: [
        `RSS of whole process trees (Linux /proc); ${runCount} runs parked in ${(parkMs / 1000).toFixed(1)} s; each idle SSE client has its own upstream reader here, which polls the run's events Query every 1 s once the run has had no event for 10 s (every ≤ 250 ms before that)`,
      ],
      data: {
        runCount,
        clientCount,
        parkMs,
        before,
        paused,
        streaming,
        idleCpu,
        cpu,
        queriesPerSec,
        cpuPerQueryMs,
        bytesReceived: clients.reduce((n, c) => n + c.bytes(), 0),
      },
    };
  },
};
