// Comparing two runs (GET /runs/compare): what each run is (status, output or error, tokens, cost, time) and its steps
// side by side by step index, with the first step where they differ. Pure: the runs are read elsewhere
// (client/run-compare.ts). Tool call ids differ between any two runs, so calls are compared by tool and arguments.
import { z } from 'zod';
import { addUsage, Usage, ZERO_USAGE, type Step } from './steps';

/** The longest text (a step's content, a run's output) an answer carries; longer ones are cut and marked. */
export const COMPARE_TEXT_CHARS = 4000;

/** One run as read for a comparison. */
export interface ComparedRunInput {
  runId: string;
  agent?: string;
  status: string;
  startTime?: string;
  closeTime?: string;
  steps: Step[];
  /** The tree's usage when the run reported it (a completed run), else its own steps' sum is used. */
  usage?: Usage;
  output?: string;
  error?: { type?: string; message: string };
  /** The run's log no longer holds its first steps (e.g. dropped at continue-as-new). */
  stepsIncomplete?: boolean;
}

/** One step as a comparison shows it. */
export const ComparedStep = z.object({
  index: z.number(),
  role: z.string(),
  content: z.string().nullable(),
  contentTruncated: z.boolean().optional(),
  toolCalls: z.array(z.object({ name: z.string(), arguments: z.string() })).optional(),
  /** A tool step: the tool that answered. */
  tool: z.string().optional(),
  isError: z.boolean().optional(),
  totalTokens: z.number().optional(),
  costUsd: z.number().optional(),
  durationMs: z.number().optional(),
});
/** One step as a comparison shows it. */
export type ComparedStep = z.infer<typeof ComparedStep>;

/** One run's side of a comparison. */
export const ComparedRun = z.object({
  runId: z.string(),
  agent: z.string().optional(),
  status: z.string(),
  startTime: z.string().optional(),
  closeTime: z.string().optional(),
  durationMs: z.number().optional(),
  steps: z.number(),
  toolCalls: z.number(),
  usage: Usage,
  output: z.string().optional(),
  outputTruncated: z.boolean().optional(),
  error: z.object({ type: z.string().optional(), message: z.string() }).optional(),
  stepsIncomplete: z.boolean().optional(),
});
/** One run's side of a comparison. */
export type ComparedRun = z.infer<typeof ComparedRun>;

/** What differs first in a step (`missing`: one run has no step at that index). */
export const DIVERGENCE_REASONS = ['missing', 'role', 'content', 'tool_calls', 'tool', 'error'] as const;

/** Two runs side by side. */
export const RunComparison = z.object({
  a: ComparedRun,
  b: ComparedRun,
  /** The first step index where they differ; absent when their steps are the same. */
  divergence: z
    .object({
      index: z.number(),
      reason: z.enum(DIVERGENCE_REASONS),
      a: ComparedStep.optional(),
      b: ComparedStep.optional(),
    })
    .optional(),
  /** Every step index either run has, in order, with the step of each and whether they are the same. */
  steps: z.array(
    z.object({ index: z.number(), same: z.boolean(), a: ComparedStep.optional(), b: ComparedStep.optional() }),
  ),
  /** b minus a. */
  delta: z.object({
    steps: z.number(),
    toolCalls: z.number(),
    totalTokens: z.number(),
    costUsd: z.number().optional(),
    durationMs: z.number().optional(),
  }),
});
/** Two runs side by side. */
export type RunComparison = z.infer<typeof RunComparison>;

const cut = (text: string) => (text.length > COMPARE_TEXT_CHARS ? text.slice(0, COMPARE_TEXT_CHARS) : text);

/** What makes two steps at the same index differ first (undefined: they are the same). */
export function stepDifference(
  a: Step | undefined,
  b: Step | undefined,
): (typeof DIVERGENCE_REASONS)[number] | undefined {
  if (!a || !b) return a || b ? 'missing' : undefined;
  if (a.role !== b.role) return 'role';
  const calls = (s: Step) => JSON.stringify((s.toolCalls ?? []).map((c) => [c.name, c.arguments]));
  if (calls(a) !== calls(b)) return 'tool_calls';
  if (a.role === 'tool' && a.name !== b.name) return 'tool';
  if ((a.content ?? null) !== (b.content ?? null)) return 'content';
  if (Boolean(a.isError) !== Boolean(b.isError)) return 'error';
  return undefined;
}

/** A step as a comparison shows it (long content cut). */
export function comparedStep(step: Step): ComparedStep {
  const content = step.content === null ? null : cut(step.content);
  return {
    index: step.index,
    role: step.role,
    content,
    ...(content !== step.content ? { contentTruncated: true } : {}),
    ...(step.toolCalls?.length
      ? { toolCalls: step.toolCalls.map((c) => ({ name: c.name, arguments: cut(c.arguments) })) }
      : {}),
    ...(step.role === 'tool' && step.name ? { tool: step.name } : {}),
    ...(step.isError ? { isError: true } : {}),
    ...(step.usage ? { totalTokens: step.usage.totalTokens } : {}),
    ...(step.usage?.costUsd !== undefined ? { costUsd: step.usage.costUsd } : {}),
    ...(step.metrics?.durationMs !== undefined ? { durationMs: step.metrics.durationMs } : {}),
  };
}

const toolCallCount = (steps: Step[]) => steps.reduce((n, s) => n + (s.toolCalls?.length ?? 0), 0);

function comparedRun(run: ComparedRunInput): ComparedRun {
  const usage = run.usage ?? run.steps.reduce((sum: Usage, s) => addUsage(sum, s.usage), ZERO_USAGE);
  const durationMs = run.startTime && run.closeTime ? Date.parse(run.closeTime) - Date.parse(run.startTime) : undefined;
  const output = run.output === undefined ? undefined : cut(run.output);
  return {
    runId: run.runId,
    ...(run.agent ? { agent: run.agent } : {}),
    status: run.status,
    ...(run.startTime ? { startTime: run.startTime } : {}),
    ...(run.closeTime ? { closeTime: run.closeTime } : {}),
    ...(durationMs !== undefined && Number.isFinite(durationMs) ? { durationMs } : {}),
    steps: run.steps.length,
    toolCalls: toolCallCount(run.steps),
    usage,
    ...(output !== undefined ? { output } : {}),
    ...(output !== run.output ? { outputTruncated: true } : {}),
    ...(run.error ? { error: run.error } : {}),
    ...(run.stepsIncomplete ? { stepsIncomplete: true } : {}),
  };
}

/** Compares run `a` with run `b`: steps paired by index, the first difference, and b's totals minus a's. */
export function compareRuns(a: ComparedRunInput, b: ComparedRunInput): RunComparison {
  const byIndex = (steps: Step[]) => new Map(steps.map((s) => [s.index, s]));
  const stepsA = byIndex(a.steps);
  const stepsB = byIndex(b.steps);
  const indexes = [...new Set([...stepsA.keys(), ...stepsB.keys()])].sort((x, y) => x - y);
  let divergence: RunComparison['divergence'];
  const steps = indexes.map((index) => {
    const [sa, sb] = [stepsA.get(index), stepsB.get(index)];
    const reason = stepDifference(sa, sb);
    const pair = {
      index,
      same: !reason,
      ...(sa ? { a: comparedStep(sa) } : {}),
      ...(sb ? { b: comparedStep(sb) } : {}),
    };
    if (reason && !divergence) divergence = { ...pair, reason };
    return pair;
  });
  const [runA, runB] = [comparedRun(a), comparedRun(b)];
  const costs = runA.usage.costUsd !== undefined && runB.usage.costUsd !== undefined;
  const durations = runA.durationMs !== undefined && runB.durationMs !== undefined;
  return {
    a: runA,
    b: runB,
    ...(divergence
      ? { divergence: { index: divergence.index, reason: divergence.reason, a: divergence.a, b: divergence.b } }
      : {}),
    steps,
    delta: {
      steps: runB.steps - runA.steps,
      toolCalls: runB.toolCalls - runA.toolCalls,
      totalTokens: runB.usage.totalTokens - runA.usage.totalTokens,
      ...(costs ? { costUsd: (runB.usage.costUsd ?? 0) - (runA.usage.costUsd ?? 0) } : {}),
      ...(durations ? { durationMs: runB.durationMs! - runA.durationMs! } : {}),
    },
  };
}
