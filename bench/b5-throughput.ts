// B5 — throughput of one worker: N concurrent 5-step runs (0 ms model), a new run started as soon as one ends,
// for ~30 s. Runs/s and agent steps/s (model calls) completed inside the window, CPU used by the worker, the
// Temporal dev server and this process, and the activity and workflow-task schedule-to-start latency at that
// rate (from the histories: ActivityTaskStarted − ActivityTaskScheduled). The baseline is Temporal's floor at the same
// load: bare 5-step workflows, each step one activity (the model call) and one local activity (a quick tool).
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
    await Promise.all(
      Array.from({ length: Math.min(4, concurrency) }, (_, i) => env.run({ steps: STEPS, tag: `b5-warm-${i}` })),
    );

    let seq = 0;
    const agio = await saturate(env, concurrency, windowMs, async () => {
      const { handle, output } = await env.run({ steps: STEPS, tag: `b5-${seq++}` });
      if (output.metrics.modelCalls !== STEPS)
        throw new Error(`run made ${output.metrics.modelCalls} model calls, expected ${STEPS}`);
      return handle.runId;
    });
    const { cpu, inWindow, done } = agio;
    const runsPerSec = inWindow.length / (windowMs / 1000);
    env.log(
      `B5: ${inWindow.length} runs in ${windowMs} ms with ${concurrency} concurrent (${done.length} incl. drain): ${runsPerSec.toFixed(2)} runs/s`,
    );

    // Temporal's floor at the same load: bare 5-step workflows, each step an activity then a local activity.
    await env.client.workflow.execute('benchStepFloor', {
      taskQueue: env.taskQueue,
      workflowId: `b5-floor-warm`,
      args: [STEPS],
    });
    const floor = await saturate(env, concurrency, windowMs, async () => {
      const workflowId = `b5-floor-${seq++}`;
      await env.client.workflow.execute('benchStepFloor', { taskQueue: env.taskQueue, workflowId, args: [STEPS] });
      return workflowId;
    });
    const floorRunsPerSec = floor.inWindow.length / (windowMs / 1000);
    env.log(`B5: floor ${floor.inWindow.length} runs in ${windowMs} ms: ${floorRunsPerSec.toFixed(2)} runs/s`);

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
      {
        metric: `runs/s (${concurrency} concurrent ${STEPS}-step runs)`,
        value: runsPerSec,
        unit: `runs/s (${inWindow.length} runs in ${windowMs / 1000} s)`,
      },
      {
        metric: 'agent steps/s (model calls)',
        value: runsPerSec * STEPS,
        baseline: floorRunsPerSec * STEPS,
        ratio: runsPerSec / floorRunsPerSec,
        unit: 'steps/s (baseline: bare workflow, activity + local activity per step)',
      },
      {
        metric: 'activities/s',
        value: inWindow.length > 0 ? (runsPerSec * allActivities.length) / sample.length : NaN,
        unit: 'activities/s (model + tool + resolveTools)',
      },
      { metric: 'run duration at that load', value: runLatency.median, p99: runLatency.p99, unit: 'ms' },
      {
        metric: 'activity schedule-to-start',
        value: summarize(allActivities).median,
        p99: summarize(allActivities).p99,
        unit: `ms (n=${allActivities.length} from ${sample.length} runs)`,
      },
      ...Object.entries(activity).map(([type, ms]) => ({
        metric: `  ${type}`,
        value: summarize(ms).median,
        p99: summarize(ms).p99,
        unit: 'ms schedule-to-start',
      })),
      {
        metric: 'workflow task schedule-to-start',
        value: summarize(wft).median,
        p99: summarize(wft).p99,
        unit: `ms (n=${wft.length})`,
      },
      { metric: 'CPU: worker process', value: cpu.worker, unit: 'cores' },
      { metric: 'CPU: Temporal dev server', value: cpu.server, unit: 'cores' },
      { metric: 'CPU: bench process (client + model)', value: cpu.bench, unit: 'cores' },
      {
        metric: 'CPU per agent step: worker process',
        value: (cpu.worker * 1000) / (runsPerSec * STEPS),
        baseline: (floor.cpu.worker * 1000) / (floorRunsPerSec * STEPS),
        unit: 'ms CPU / step (baseline: bare workflow)',
      },
      {
        metric: 'CPU per agent step: Temporal dev server',
        value: (cpu.server * 1000) / (runsPerSec * STEPS),
        baseline: (floor.cpu.server * 1000) / (floorRunsPerSec * STEPS),
        unit: 'ms CPU / step (baseline: bare workflow)',
      },
    ];
    return {
      status: 'ok',
      rows,
      notes: [
        `one worker with default Worker options; ${concurrency} runs in flight at all times (override with BENCH_B5_CONCURRENCY, BENCH_B5_SECONDS)`,
      ],
      data: {
        concurrency,
        windowMs,
        steps: STEPS,
        runs: done.length,
        runsInWindow: inWindow.length,
        cpu,
        floor: { runsInWindow: floor.inWindow.length, cpu: floor.cpu },
        activityScheduleToStart: activity,
        workflowTaskScheduleToStart: wft,
        runDurations: inWindow.map((d) => d.durationMs),
      },
    };
  },
};

/**
 * Keeps `concurrency` runs in flight for `windowMs`, starting one as soon as one ends; CPU is in cores over the window.
 */
async function saturate(env: BenchEnv, concurrency: number, windowMs: number, runOne: () => Promise<string>) {
  const done: { runId: string; endedAt: number; durationMs: number }[] = [];
  const cpu0 = { worker: cpuSeconds(env.worker.pid), server: cpuSeconds(env.temporal.pid), self: process.cpuUsage() };
  const t0 = Date.now();
  const deadline = t0 + windowMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) {
        const startedAt = Date.now();
        const runId = await runOne();
        const endedAt = Date.now();
        done.push({ runId, endedAt, durationMs: endedAt - startedAt });
      }
    }),
  );
  const selfCpu = process.cpuUsage(cpu0.self);
  const seconds = (Date.now() - t0) / 1000;
  const cpu = {
    worker: (cpuSeconds(env.worker.pid) - cpu0.worker) / seconds,
    server: (cpuSeconds(env.temporal.pid) - cpu0.server) / seconds,
    bench: (selfCpu.user + selfCpu.system) / 1e6 / seconds,
  };
  return { done, inWindow: done.filter((d) => d.endedAt <= deadline), cpu };
}
