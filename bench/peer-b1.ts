// PEER × B1 — the same 20-step agent (19 model calls that each return one `bench_echo` call, then a text answer)
// on @temporalio/openai-agents, with model latency 0 and 200 ms, in two modes: its default `runner.run()`
// (non-streaming model activity) and `run(…, { stream: true })` (streaming model activity publishing to a
// WorkflowStream, like Agio, which always publishes its deltas). Interleaved with Agio runs and with B1's
// in-process baseline loop, so all of them see the same machine load.
import OpenAI from 'openai';
import { baselineRun, stepTimeline, timed, workflowTasks, type StepActivities } from './b1-overhead';
import type { RunPlan } from './model';
import type { PeerEnv } from './peer-env';
import type { BenchResult, Row } from './report';
import type { BenchEnv, History } from './setup';
import { median } from './stats';

const STEPS = 20;

/** The peer's step: its model activity (non-streaming or streaming) and the `bench_echo` activity tool. */
const PEER_STEP: Record<'peer' | 'peerStream', StepActivities> = {
  peer: { model: 'invokeModelActivity', tool: 'bench_echo', modelCall: 'HTTP call' },
  peerStream: { model: 'invokeModelStreamActivity', tool: 'bench_echo', modelCall: 'HTTP stream + publish signals' },
};

interface Samples {
  peer: number[];
  peerStream: number[];
  agio: number[];
  baseline: number[];
}

function breakdown(history: History, step: StepActivities, steps: number): Record<string, number> {
  const wft = workflowTasks(history);
  const mean = wft.processingMs.reduce((a, b) => a + b, 0) / (wft.processingMs.length || NaN);
  return {
    ...stepTimeline(history, step),
    'workflow tasks per step': wft.count / steps,
    'workflow task started → completed (worker + persistence)': mean,
  };
}

export async function peerB1(env: BenchEnv, peer: PeerEnv): Promise<Pick<BenchResult, 'rows' | 'notes' | 'data'>> {
  const openai = new OpenAI({ baseURL: env.model.baseURL, apiKey: 'bench', maxRetries: 0 });
  const latencies = env.quick
    ? [
        { latencyMs: 0, reps: 1 },
        { latencyMs: 200, reps: 1 },
      ]
    : [
        { latencyMs: 0, reps: 5 },
        { latencyMs: 200, reps: 2 },
      ];
  const steps = env.quick ? 5 : STEPS;
  let seq = 0;
  const plan = (latencyMs: number): RunPlan => ({ steps, latencyMs, tag: `pb1-${seq++}` });
  // Warm-up: the peer worker's first workflows (both modes), and Agio's and the baseline's connections.
  await peer.run({ ...plan(0), steps: 3 }, false);
  await peer.run({ ...plan(0), steps: 3 }, true);
  await env.run({ ...plan(0), steps: 3 });
  await baselineRun(openai, { ...plan(0), steps: 3 });

  const rows: Row[] = [];
  const samples: Record<string, Samples> = {};
  const timelines: Record<string, Record<string, number>> = {};
  for (const { latencyMs, reps } of latencies) {
    const s: Samples = { peer: [], peerStream: [], agio: [], baseline: [] };
    for (let r = 0; r < reps; r++) {
      for (const mode of ['peer', 'peerStream'] as const) {
        let history: History | undefined;
        s[mode].push(
          await timed(async () => {
            const { handle } = await peer.run(plan(latencyMs), mode === 'peerStream');
            if (r === 0 && latencyMs === 0) history = await handle.fetchHistory();
          }),
        );
        if (history) timelines[mode] = breakdown(history, PEER_STEP[mode], steps);
      }
      s.agio.push(
        await timed(async () => {
          const { output } = await env.run(plan(latencyMs));
          if (output.metrics.modelCalls !== steps)
            throw new Error(`Agio run made ${output.metrics.modelCalls} model calls, expected ${steps}`);
        }),
      );
      s.baseline.push(await timed(() => baselineRun(openai, plan(latencyMs))));
      env.log(
        `PEER B1: ${latencyMs} ms model, rep ${r + 1}/${reps}: peer ${s.peer.at(-1)!.toFixed(0)} ms, peer streaming ${s.peerStream.at(-1)!.toFixed(0)} ms, Agio ${s.agio.at(-1)!.toFixed(0)} ms, baseline ${s.baseline.at(-1)!.toFixed(0)} ms`,
      );
    }
    samples[`${latencyMs}ms`] = s;
    const [p, ps, a, b] = [median(s.peer), median(s.peerStream), median(s.agio), median(s.baseline)];
    const unit = `ms / ${steps}-step run (n=${reps}; baseline = in-process loop)`;
    rows.push(
      { metric: `B1 run wall time, model ${latencyMs} ms: peer run()`, value: p, baseline: b, ratio: p / b, unit },
      {
        metric: `B1 run wall time, model ${latencyMs} ms: peer streaming`,
        value: ps,
        baseline: b,
        ratio: ps / b,
        unit,
      },
      {
        metric: `B1 run wall time, model ${latencyMs} ms: Agio, interleaved`,
        value: a,
        baseline: b,
        ratio: a / b,
        unit,
      },
      {
        metric: `B1 overhead per step, model ${latencyMs} ms: peer run()`,
        value: (p - b) / steps,
        baseline: (a - b) / steps,
        ratio: (p - b) / (a - b),
        unit: 'ms / step (baseline = Agio)',
      },
      {
        metric: `B1 overhead per step, model ${latencyMs} ms: peer streaming`,
        value: (ps - b) / steps,
        baseline: (a - b) / steps,
        ratio: (ps - b) / (a - b),
        unit: 'ms / step (baseline = Agio)',
      },
    );
  }
  for (const mode of ['peer', 'peerStream'] as const) {
    for (const [phase, ms] of Object.entries(timelines[mode] ?? {})) {
      rows.push({
        metric: `  B1 0 ms model, ${mode === 'peer' ? 'run()' : 'streaming'}: ${phase}`,
        value: ms,
        unit: phase.startsWith('workflow tasks per') ? 'tasks' : 'ms (mean over the run)',
      });
    }
  }
  return {
    rows,
    notes: [
      `B1: peer run() = TemporalOpenAIRunner.run(agent, input) (model activity invokeModelActivity, one non-streamed Chat Completions call); peer streaming = run(agent, input, { stream: true }) with a WorkflowStream hosted in the workflow (invokeModelStreamActivity streams the call and publishes every raw model event, batched every 100 ms, like Agio's deltas) and no subscriber; bench_echo is an activity (activityAsTool); each mode, an Agio run and the in-process baseline run in turn, ${steps} steps each`,
    ],
    data: { steps, samples, stepTimelines: timelines },
  };
}
