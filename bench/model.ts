// The benchmark's scripted model: every run's input carries a plan (`bench:{...}`), and the responder answers
// each chat-completions request from that plan and the conversation so far, so any number of concurrent runs
// can share one ScriptedModelServer without a per-run script.
import { text, toolCall, toolCalls, type RecordedRequest, type ScriptedTurn } from '../devkit/scripted-model-server';

/** What the model does in one run. */
export interface RunPlan {
  /** Model calls in the run: `steps - 1` turns with one `bench_echo` call each, then a text answer. */
  steps: number;
  /** Model latency: wait before the first chunk of every answer (ms). */
  latencyMs?: number;
  /** The final answer as `chunks` unique tokens (one SSE chunk each), `intervalMs` apart (B2). */
  stream?: { chunks: number; intervalMs: number };
  /** Unique per run; part of every streamed token so tokens can be matched across runs. */
  tag: string;
  /**
   * The tool each turn calls (default `bench_echo`, a quick tool; `bench_echo_activity` is the same as an activity).
   */
  tool?: 'bench_echo' | 'bench_echo_activity';
}

const PREFIX = 'bench:';

/** The user input that carries a plan. */
export function planInput(plan: RunPlan): string {
  return PREFIX + JSON.stringify(plan);
}

/** Fixed-width token `chunk` of run `tag` (so `chunkSize` splits the answer exactly into tokens). */
export function streamToken(tag: string, chunk: number): string {
  return `<${tag}:${String(chunk).padStart(5, '0')}>`;
}

interface Message {
  role: string;
  content?: unknown;
}

/** The plan of the run that sent this request (from its first user message), or undefined. */
export function planOf(req: RecordedRequest): RunPlan | undefined {
  const messages = (req.body?.messages ?? []) as Message[];
  const user = messages.find((m) => m.role === 'user');
  if (typeof user?.content !== 'string' || !user.content.startsWith(PREFIX)) return undefined;
  return JSON.parse(user.content.slice(PREFIX.length)) as RunPlan;
}

/** Answers a request from its run's plan: how many assistant turns the conversation already holds picks the turn. */
export function planTurn(plan: RunPlan, req: RecordedRequest): ScriptedTurn {
  const messages = (req.body?.messages ?? []) as Message[];
  const done = messages.filter((m) => m.role === 'assistant').length;
  const latency = plan.latencyMs ? { firstChunkDelayMs: plan.latencyMs } : {};
  if (done < plan.steps - 1) return toolCalls([toolCall(plan.tool ?? 'bench_echo', { i: done })], latency);
  if (!plan.stream) return text(`done after ${done} tool calls`, latency);
  const tokens = Array.from({ length: plan.stream.chunks }, (_, i) => streamToken(plan.tag, i));
  return text(tokens.join(''), { ...latency, chunkSize: tokens[0].length, delayMs: plan.stream.intervalMs });
}
