// SETTINGS — the dev server's dynamic config (devkit/dynamic-config.ts), one setting at a time: from
// Temporal's own defaults, each setting is added in turn, on a new dev server and worker each time. Per variant: a
// bare activity round trip, how late a 10 ms workflow timer fires, how long a finished run takes to show as
// completed in visibility (what `GET /runs` lists), and an Agio step (10-step run, 0 ms model).
import type { Benchmark, Row } from './report';
import { BenchEnv, sleep } from './setup';
import { median } from './stats';

/** Settings added cumulatively, in this order, on top of Temporal's defaults: the two Agio keeps
 * (dynamic-config.ts) and the two it measured and left at their defaults. */
const ORDER: [string, string | number | boolean][] = [
  ['history.transferProcessorMaxPollRPS', 1000],
  ['history.timerProcessorMaxPollRPS', 1000],
  ['history.visibilityProcessorMaxPollRPS', 1000],
  ['system.enableActivityEagerExecution', true],
];

interface Figures {
  activityRoundTripMs: number;
  timerLatenessMs: number;
  visibilityLagMs: number;
  agioStepMs: number;
}

async function measure(env: BenchEnv, reps: number): Promise<Figures> {
  const steps = 10;
  let seq = 0;
  const run = (type: string, args: unknown[], workflowId = `settings-${type}-${seq++}`) =>
    env.client.workflow.execute(type, { taskQueue: env.taskQueue, workflowId, args });
  await run('benchFloor', [2]);
  await env.run({ steps: 3, tag: 'settings-warm' });
  const floor: number[] = [];
  const timers: number[] = [];
  const visibility: number[] = [];
  const agio: number[] = [];
  for (let r = 0; r < reps; r++) {
    let t0 = performance.now();
    await run('benchFloor', [steps]);
    floor.push((performance.now() - t0) / (2 * steps));

    t0 = performance.now();
    await run('benchTimers', [steps, 10]);
    timers.push((performance.now() - t0) / steps - 10);

    const id = `settings-visibility-${seq++}`;
    await run('benchFloor', [1], id);
    t0 = performance.now();
    for (;;) {
      const listed = await env.client.workflow.count(`WorkflowId = '${id}' AND ExecutionStatus = 'Completed'`);
      if (listed.count > 0) break;
      if (performance.now() - t0 > 10_000) throw new Error(`${id} did not show as completed in visibility within 10 s`);
      await sleep(2);
    }
    visibility.push(performance.now() - t0);

    t0 = performance.now();
    await env.run({ steps, tag: `settings-${seq++}` });
    agio.push((performance.now() - t0) / steps);
  }
  return {
    activityRoundTripMs: median(floor),
    timerLatenessMs: median(timers),
    visibilityLagMs: median(visibility),
    agioStepMs: median(agio),
  };
}

export const settings: Benchmark = {
  id: 'SETTINGS',
  title: 'dev server dynamic config, one setting at a time',
  async run(shared: BenchEnv) {
    const reps = shared.quick ? 2 : 7;
    const variants: { name: string; config: Record<string, string | number | boolean> }[] = [
      { name: "Temporal's defaults", config: {} },
    ];
    for (const [i, [key]] of ORDER.entries())
      variants.push({ name: `+ ${key}`, config: Object.fromEntries(ORDER.slice(0, i + 1)) });
    const figures: Record<string, Figures> = {};
    for (const variant of variants) {
      const env = await BenchEnv.create({
        quick: shared.quick,
        log: (m) => shared.log(m),
        temporal: { untuned: true, dynamicConfig: variant.config },
      });
      try {
        figures[variant.name] = await measure(env, reps);
      } finally {
        await env.close();
      }
      const f = figures[variant.name];
      shared.log(
        `SETTINGS: ${variant.name}: activity ${f.activityRoundTripMs.toFixed(1)} ms, timer +${f.timerLatenessMs.toFixed(1)} ms, visibility ${f.visibilityLagMs.toFixed(1)} ms, Agio step ${f.agioStepMs.toFixed(1)} ms`,
      );
    }
    const rows: Row[] = variants.flatMap(({ name }) => {
      const f = figures[name];
      return [
        { metric: `${name}: activity round trip`, value: f.activityRoundTripMs, unit: `ms (median of ${reps} × 20)` },
        { metric: `${name}: 10 ms timer fires late by`, value: f.timerLatenessMs, unit: 'ms' },
        { metric: `${name}: completed → listed in visibility`, value: f.visibilityLagMs, unit: 'ms' },
        { metric: `${name}: Agio step (0 ms model)`, value: f.agioStepMs, unit: 'ms / step' },
      ];
    });
    return {
      status: 'ok',
      rows,
      notes: [
        'each variant adds one setting to the ones above it, on a new dev server and worker process; Agio keeps the transfer and eager settings (devkit/dynamic-config.ts)',
      ],
      data: { reps, figures },
    };
  },
};
