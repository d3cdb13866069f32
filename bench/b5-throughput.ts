// B5 — throughput of one worker: N concurrent 5-step runs (0 ms model), a new run started as soon as one ends,
// for ~30 s. Runs/s and agent steps/s (model calls) completed inside the window, CPU used by the worker, the
// Temporal dev server and this process, and the activity and workflow-task schedule-to-start latency at that
// rate (from the histories: ActivityTaskStarted − ActivityTaskScheduled).
import type { Benchmark, Row } from './report';
import { activityScheduleToStart, cpuSeconds, workflowTaskScheduleToStart, type BenchEnv } from './setup';
import { summarize } from './stats';

const STEPS = 5;

export const b5: Benchmark = {
  id: 'B5',
  title: 'throughput of one worker (5-step runs, 0 ms model)',
  async run(env: BenchEnv) {
    const concurrency = env.quick ? 4 : Number(process.env.BENCH_B5_CONCURRENCY ?? 20);
    const windowMs = env.quick ? 5_000 : Number(process.env.BENCH_B5_SECONDS ?? 30) * 1000;
    await Promise.all(Array.from({ length: Math.min(4, concurrency) }, (_, i) => env.run({ steps: STEPS, tag: `b5-warm-${i}` })));

    const done: { runId: string; endedAt: number; durationMs: number }[] = [];
    let seq = 0;
    const cpu0 = { worker: cpuSeconds(env.worker.pid), server: cpuSeconds(env.temporal.pid), self: process.cpuUsage() };
    const t0 = Date.now();
    const deadline = t0 + windowMs;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < deadline) {
          const startedAt = Date.now();
          const { handle, output } = await env.run({ steps: STEPS, tag: `b5-${seq++}` });
          if (output.metrics.modelCalls !== STEPS) throw new Error(`run made ${output.metrics.modelCalls} model calls, expected ${STEPS}`);
          const endedAt = Date.now();
          done.push({ runId: handle.runId, endedAt, durationMs: endedAt - startedAt });
        }
      }),
    );
    const selfCpu = process.cpuUsage(cpu0.self);
    const elapsed = Date.now() - t0;
    const cpu = {
      worker: (cpuSeconds(env.worker.pid) - cpu0.worker) / (elapsed / 1000),
      server: (cpuSeconds(env.temporal.pid) - cpu0.server) / (elapsed / 1000),
      bench: (selfCpu.user + selfCpu.system) / 1e6 / (elapsed / 1000),
    };
    const inWindow = done.filter((d) => d.endedAt <= deadline);
    const runsPerSec = inWindow.length / (windowMs / 1000);
    env.log(`B5: ${inWindow.length} runs in ${windowMs} ms with ${concurrency} concurrent (${done.length} incl. drain): ${runsPerSec.toFixed(2)} runs/s`);

    // Latencies at that rate, from a sample of the histories.
    const sample = inWindow.filter((_, i) => i % Math.max(1, Math.floor(inWindow.length / 80)) === 0);
    const activity: Record<string, number[]> = {};
    const wft: number[] = [];
    for (const d of sample) {
      const history = await env.client.workflow.getHandle(d.runId).fetchHistory();
      for (const a of activityScheduleToStart(history)) (activity[a.type] ??= []).push(a.ms);
      wft.push(...workflowTaskScheduleToStart(history));
    }
    const allActivities = Object.values(activity).flat();
    const runLatency = summarize(inWindow.map((d) => d.durationMs));
    const rows: Row[] = [
      { metric: `runs/s (${concurrency} concurrent ${STEPS}-step runs)`, value: runsPerSec, unit: `runs/s (${inWindow.length} runs in ${windowMs / 1000} s)` },
      { metric: 'agent steps/s (model calls)', value: runsPerSec * STEPS, unit: 'steps/s' },
      { metric: 'activities/s', value: inWindow.length > 0 ? (runsPerSec * allActivities.length) / sample.length : NaN, unit: 'activities/s (model + tool + resolveTools)' },
      { metric: 'run duration at that load', value: runLatency.median, p99: runLatency.p99, unit: 'ms' },
      { metric: 'activity schedule-to-start', value: summarize(allActivities).median, p99: summarize(allActivities).p99, unit: `ms (n=${allActivities.length} from ${sample.length} runs)` },
      ...Object.entries(activity).map(([type, ms]) => ({ metric: `  ${type}`, value: summarize(ms).median, p99: summarize(ms).p99, unit: 'ms schedule-to-start' })),
      { metric: 'workflow task schedule-to-start', value: summarize(wft).median, p99: summarize(wft).p99, unit: `ms (n=${wft.length})` },
      { metric: 'CPU: worker process', value: cpu.worker, unit: 'cores' },
      { metric: 'CPU: Temporal dev server', value: cpu.server, unit: 'cores' },
      { metric: 'CPU: bench process (client + model)', value: cpu.bench, unit: 'cores' },
      { metric: 'CPU per agent step: worker process', value: (cpu.worker * 1000) / (runsPerSec * STEPS), unit: 'ms CPU / step' },
      { metric: 'CPU per agent step: Temporal dev server', value: (cpu.server * 1000) / (runsPerSec * STEPS), unit: 'ms CPU / step' },
    ];
    return {
      status: 'ok',
      rows,
      notes: [`one worker with default Worker options; ${concurrency} runs in flight at all times (override with BENCH_B5_CONCURRENCY, BENCH_B5_SECONDS)`],
      data: { concurrency, windowMs, steps: STEPS, runs: done.length, runsInWindow: inWindow.length, cpu, activityScheduleToStart: activity, workflowTaskScheduleToStart: wft, runDurations: inWindow.map((d) => d.durationMs) },
    };
  },
};
