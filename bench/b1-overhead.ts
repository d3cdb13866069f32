// B1 — orchestration overhead: a 20-step agent (19 model calls that each return one `bench_echo` call, then a
// text answer) run by Agio (start → result, worker in its own process) versus a plain in-process loop that
// calls the same `openai` client against the same scripted server and runs the same tool function directly.
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import os from 'node:os';
import { ToolRegistry } from '../activities/tools/registry';
import { planInput, type RunPlan } from './model';
import type { Benchmark, Row } from './report';
import { activityTimeline, benchAgent, cpuSeconds, eventTime, type BenchEnv, type History } from './setup';
import { mean, median } from './stats';
import { benchTools, directToolContext } from './tools';

const STEPS = 20;

/** The same agent loop as Agio's, without Temporal: stream a completion, run its tool calls, repeat. */
export async function baselineRun(openai: OpenAI, plan: RunPlan): Promise<number> {
  const registry = new ToolRegistry(benchTools);
  const tools = benchTools.map((t) => registry.openAiTool(t.name));
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: benchAgent.instructions },
    { role: 'user', content: planInput(plan) },
  ];
  for (let modelCalls = 1; ; modelCalls++) {
    const stream = await openai.chat.completions.create({
      model: 'scripted-model',
      messages,
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = '';
    const calls: { id: string; name: string; arguments: string }[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      if (!delta) continue;
      if (delta.content) content += delta.content;
      for (const tc of delta.tool_calls ?? []) {
        const call = (calls[tc.index] ??= { id: '', name: '', arguments: '' });
        if (tc.id) call.id = tc.id;
        if (tc.function?.name) call.name += tc.function.name;
        if (tc.function?.arguments) call.arguments += tc.function.arguments;
      }
    }
    messages.push({
      role: 'assistant',
      content: content || null,
      ...(calls.length
        ? {
            tool_calls: calls.map((c) => ({
              id: c.id,
              type: 'function' as const,
              function: { name: c.name, arguments: c.arguments },
            })),
          }
        : {}),
    });
    if (!calls.length) return modelCalls;
    for (const call of calls) {
      const tool = registry.find(call.name)!;
      const args = tool.parameters.parse(JSON.parse(call.arguments)) as { i: number };
      const out = await tool.execute(args, directToolContext(os.tmpdir(), plan.tag, call.id));
      messages.push({ role: 'tool', tool_call_id: call.id, content: typeof out === 'string' ? out : out.content });
    }
  }
}

/** The activity types of one agent step, and what the model activity's time covers (for the phase labels). */
export interface StepActivities {
  model: string;
  tool: string;
  modelCall: string;
}

const AGIO_STEP: StepActivities = {
  model: 'callModel',
  tool: 'runTool',
  modelCall: 'HTTP call (+ delta signals if it streams)',
};

/** Where a step's time goes, from a run's history (means over its tool steps, ms, so they add up). A tool that ran
 * as a local activity has no activity of its own: its time is inside the workflow task between two model calls. */
export function stepTimeline(
  history: History,
  { model: m, tool: t, modelCall }: StepActivities = AGIO_STEP,
): Record<string, number> {
  const acts = activityTimeline(history).filter((a) => a.type === m || a.type === t);
  if (!acts.some((a) => a.type === t)) {
    const local: Record<string, number[]> = {
      [`${m} scheduled → started (dispatch)`]: [],
      [`${m} started → completed (${modelCall})`]: [],
      [`${m} completed → next ${m} scheduled (one workflow task: ${t} as a local activity, schedule; the turn is stored by the next call)`]:
        [],
    };
    const [p1, p2, p3] = Object.values(local);
    for (let i = 0; i + 1 < acts.length; i++) {
      const [model, next] = [acts[i], acts[i + 1]];
      if (model.startedAt === undefined || model.closedAt === undefined) continue;
      p1.push(model.startedAt - model.scheduledAt);
      p2.push(model.closedAt - model.startedAt);
      p3.push(next.scheduledAt - model.closedAt);
    }
    return Object.fromEntries(Object.entries(local).map(([k, v]) => [k, mean(v)]));
  }
  const phases: Record<string, number[]> = {
    [`${m} scheduled → started (dispatch)`]: [],
    [`${m} started → completed (${modelCall})`]: [],
    [`${m} completed → ${t} scheduled (workflow task)`]: [],
    [`${t} scheduled → started (dispatch)`]: [],
    [`${t} started → completed`]: [],
    [`${t} completed → next ${m} scheduled (workflow task)`]: [],
  };
  const [p1, p2, p3, p4, p5, p6] = Object.values(phases);
  for (let i = 0; i + 2 < acts.length; i += 2) {
    const [model, tool, next] = [acts[i], acts[i + 1], acts[i + 2]];
    if (model.type !== m || tool.type !== t || next.type !== m) continue;
    if (
      model.startedAt === undefined ||
      model.closedAt === undefined ||
      tool.startedAt === undefined ||
      tool.closedAt === undefined
    )
      continue;
    p1.push(model.startedAt - model.scheduledAt);
    p2.push(model.closedAt - model.startedAt);
    p3.push(tool.scheduledAt - model.closedAt);
    p4.push(tool.startedAt - tool.scheduledAt);
    p5.push(tool.closedAt - tool.startedAt);
    p6.push(next.scheduledAt - tool.closedAt);
  }
  return Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, mean(v)]));
}

/** Workflow tasks of a history: how many, and how long the worker held each (started → completed, ms). */
export function workflowTasks(history: History): { count: number; processingMs: number[] } {
  const started = new Map<number, number>();
  const processingMs: number[] = [];
  for (const e of history.events ?? []) {
    if (e.workflowTaskStartedEventAttributes) started.set(Number(e.eventId), eventTime(e));
    const done = e.workflowTaskCompletedEventAttributes;
    if (done) processingMs.push(eventTime(e) - (started.get(Number(done.startedEventId)) ?? NaN));
  }
  return { count: processingMs.length, processingMs };
}

export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export const b1: Benchmark = {
  id: 'B1',
  title: 'overhead per step (20-step agent vs in-process loop)',
  async run(env: BenchEnv) {
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
    const plan = (latencyMs: number): RunPlan => ({ steps, latencyMs, tag: `b1-${seq++}` });
    // Warm-up: first workflow in the worker, first connections, JIT.
    await env.run({ ...plan(0), steps: 3 });
    await baselineRun(openai, { ...plan(0), steps: 3 });

    // Temporal's floor: a bare workflow with the same two activity round trips per step, nothing else.
    const floor = async () => {
      const t0 = performance.now();
      await env.client.workflow.execute('benchFloor', {
        taskQueue: env.taskQueue,
        workflowId: `bench-floor-${seq++}`,
        args: [steps],
      });
      return performance.now() - t0;
    };
    await floor();
    const floorMs: number[] = [];
    // The same Agio run with a tool that is not quick (an activity per tool call), 0 ms model.
    const activityToolMs: number[] = [];

    const rows: Row[] = [];
    const samples: Record<string, { agioMs: number[]; baselineMs: number[] }> = {};
    const timelines: Record<string, Record<string, number>> = {};
    // CPU ms per step of the worker process and the Temporal dev server, over each Agio run (0 ms model).
    const cpu = { worker: [] as number[], temporal: [] as number[] };
    const cpuNow = () => ({ worker: cpuSeconds(env.worker.pid), temporal: cpuSeconds(env.temporal.pid) });
    for (const { latencyMs, reps } of latencies) {
      const agioMs: number[] = [];
      const baselineMs: number[] = [];
      for (let r = 0; r < reps; r++) {
        // Interleaved, so drifting machine load hits both alike.
        let handle: Awaited<ReturnType<BenchEnv['run']>>['handle'] | undefined;
        const cpu0 = cpuNow();
        agioMs.push(
          await timed(async () => {
            const ran = await env.run(plan(latencyMs));
            handle = ran.handle;
            if (ran.output.metrics.modelCalls !== steps)
              throw new Error(`Agio run made ${ran.output.metrics.modelCalls} model calls, expected ${steps}`);
          }),
        );
        if (latencyMs === 0) {
          const cpu1 = cpuNow();
          cpu.worker.push(((cpu1.worker - cpu0.worker) * 1000) / steps);
          cpu.temporal.push(((cpu1.temporal - cpu0.temporal) * 1000) / steps);
        }
        if (r === 0) {
          const history = await handle!.workflow.fetchHistory();
          const wft = workflowTasks(history);
          timelines[`${latencyMs}ms`] = {
            ...stepTimeline(history),
            'workflow tasks per step': wft.count / steps,
            'workflow task started → completed (worker + local activities)': mean(wft.processingMs),
          };
        }
        baselineMs.push(
          await timed(async () => {
            const calls = await baselineRun(openai, plan(latencyMs));
            if (calls !== steps) throw new Error(`baseline made ${calls} model calls, expected ${steps}`);
          }),
        );
        if (latencyMs === 0) {
          floorMs.push(await floor());
          activityToolMs.push(await timed(() => env.run({ ...plan(0), tool: 'bench_echo_activity' })));
        }
        env.log(
          `B1: ${latencyMs} ms model, rep ${r + 1}/${reps}: Agio ${agioMs.at(-1)!.toFixed(0)} ms, baseline ${baselineMs.at(-1)!.toFixed(0)} ms${latencyMs === 0 ? `, bare Temporal workflow ${floorMs.at(-1)!.toFixed(0)} ms` : ''}`,
        );
      }
      samples[`${latencyMs}ms`] = { agioMs, baselineMs };
      const a = median(agioMs);
      const b = median(baselineMs);
      rows.push(
        {
          metric: `run wall time, model ${latencyMs} ms`,
          value: a,
          baseline: b,
          ratio: a / b,
          unit: `ms / ${steps}-step run (n=${reps})`,
        },
        { metric: `overhead per step, model ${latencyMs} ms`, value: (a - b) / steps, unit: 'ms / step' },
      );
    }
    const bare = median(samples['0ms'].baselineMs);
    rows.push({
      metric: 'overhead per step, model 0 ms, tool as an activity (not quick)',
      value: (median(activityToolMs) - bare) / steps,
      unit: `ms / step (n=${activityToolMs.length})`,
    });
    const f = median(floorMs);
    rows.push({
      metric: 'Temporal floor: bare workflow, 2 no-op activities / step',
      value: f / steps,
      baseline: median(samples['0ms'].agioMs) / steps,
      ratio: f / median(samples['0ms'].agioMs),
      unit: `ms / step (baseline = Agio at 0 ms; n=${floorMs.length})`,
    });
    rows.push(
      {
        metric: 'CPU per step, 0 ms model: worker process',
        value: median(cpu.worker),
        unit: `ms CPU / step (n=${cpu.worker.length}; /proc ticks of 10 ms)`,
      },
      {
        metric: 'CPU per step, 0 ms model: Temporal dev server',
        value: median(cpu.temporal),
        unit: `ms CPU / step (n=${cpu.temporal.length})`,
      },
    );
    // Where an Agio step's time goes (0 ms model), from the first measured run's history.
    for (const [phase, ms] of Object.entries(timelines['0ms'] ?? {})) {
      rows.push({
        metric: `  0 ms model: ${phase}`,
        value: ms,
        unit: phase.startsWith('workflow tasks per')
          ? 'tasks (incl. those woken by publish signals)'
          : 'ms (mean over the run)',
      });
    }
    return {
      status: 'ok',
      rows,
      notes: [
        `Temporal floor = a workflow that only runs two no-op activities per step on the same worker (what any Temporal-based loop pays here); steps = model calls (${steps - 1} with one bench_echo tool call, the last a text answer); Agio = AgioClient.start → result() with the worker in another process; baseline = the same openai client + tool function in one loop in the measuring process`,
      ],
      data: { steps, samples, floorMs, activityToolMs, stepTimelines: timelines, cpuMsPerStep: cpu },
    };
  },
};
