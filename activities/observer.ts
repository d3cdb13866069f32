// Run observers: what every model call and tool call reports when it ends (timing, tokens, cost, outcome), for the
// worker's metrics and traces. Observers see each attempt once; one that throws never fails the call it watches.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { pricedUsage, type ChatMessage, type PriceTable, type Step, type Usage, type WireEvent } from '../common';
import type { ModelConfig } from './model/call-model';
import type { CallModelInput, CallModelOutput } from '../common/contracts/model-call';
import type { RunToolInput, RunToolOutput } from '../common/contracts/tool-calls';

/** Who made a call: the run, its tree, its tenant and agent (where the call's input names them). */
export interface CallOrigin {
  runId: string;
  rootRunId?: string;
  tenant?: string;
  agent?: string;
  /** Temporal's attempt number of the activity (1 for the first). */
  attempt: number;
  /** The tree's W3C trace id, when its client started it inside a trace (RunContext.traceId). */
  traceId?: string;
}

/** One model call attempt, ended. */
export interface ModelCallRecord extends CallOrigin {
  stepId: string;
  /** The provider's name (gen_ai.provider.name: `openai` for api.openai.com, else ModelConfig.provider or the host). */
  provider: string;
  model: string;
  startedAt: number;
  durationMs: number;
  firstTokenMs?: number;
  /** With its cost where the price table knows the model (absent when the attempt failed). */
  usage?: Usage;
  finishReason?: string | null;
  /** The failure's type (an ErrorType such as ModelRateLimited) when the attempt failed. */
  errorType?: string;
  /** Whether Temporal will try the call again (a failed attempt that is retryable). */
  retryable?: boolean;
  /** The messages sent, when they travelled in the call's input (for traces that capture content). */
  messages?: ChatMessage[];
  /** The step the model answered (for traces that capture content). */
  output?: Step;
}

/** One tool call attempt, ended. */
export interface ToolCallRecord extends CallOrigin {
  tool: string;
  toolCallId: string;
  startedAt: number;
  durationMs: number;
  /** `ok`; `error`: the tool answered with an error result the model reads; `failed`: the attempt threw. */
  outcome: 'ok' | 'error' | 'failed';
  errorType?: string;
}

/** The Wire events were appended to: its run's workflow id and the start of its chain of runs (epoch ms). */
export interface WireLog {
  workflowId: string;
  startedAt: number;
}

/** Receives what calls report. Every method is optional. */
export interface RunObserver {
  modelCall?(record: ModelCallRecord): void;
  toolCall?(record: ToolCallRecord): void;
  /**
   * Events a run just appended to its own Wire (the worker's wire sink: once, never on replay); `log` says whose Wire
   * (a nested run's start and end are copied to its parent's) and when that workflow's chain started.
   */
  runEvents?(events: WireEvent[], log?: WireLog): void;
}

/** Reports to every observer; an observer's failure is logged, never thrown into the call. */
export function notify<K extends keyof RunObserver>(
  observers: readonly RunObserver[],
  kind: K,
  ...args: Parameters<NonNullable<RunObserver[K]>>
): void {
  for (const observer of observers) {
    try {
      (observer[kind] as ((...a: typeof args) => void) | undefined)?.apply(observer, args);
    } catch (err) {
      console.warn(`agio: a run observer failed on a ${kind} record: ${(err as Error).message}`);
    }
  }
}

/** The provider a ModelConfig names: its `provider`, `openai` for OpenAI's own endpoint, else the endpoint's host. */
export function providerOf(config: Pick<ModelConfig, 'baseURL' | 'provider'>): string {
  if (config.provider) return config.provider;
  if (!config.baseURL) return 'openai';
  try {
    const host = new URL(config.baseURL).hostname;
    return host === 'api.openai.com' ? 'openai' : host;
  } catch {
    return 'unknown';
  }
}

function failureType(err: unknown): { errorType: string; retryable: boolean } {
  if (err instanceof ApplicationFailure) return { errorType: err.type ?? 'Error', retryable: !err.nonRetryable };
  return { errorType: err instanceof Error ? err.name : 'Error', retryable: true };
}

/**
 * callModel that prices its usage (on the output and the step, so STEP_COMPLETED carries the cost) and reports each
 * attempt to the observers.
 */
export function observedCallModel(
  callModel: (input: CallModelInput) => Promise<CallModelOutput>,
  config: Pick<ModelConfig, 'baseURL' | 'provider' | 'defaultModel'>,
  prices: PriceTable,
  observers: readonly RunObserver[],
): (input: CallModelInput) => Promise<CallModelOutput> {
  const provider = providerOf(config);
  return async (input) => {
    const startedAt = Date.now();
    const model = input.model ?? config.defaultModel;
    const origin = {
      runId: input.runId,
      rootRunId: input.rootRunId,
      agent: input.eventBase?.agent,
      tenant: input.tenant,
      attempt: Context.current().info.attempt,
      ...(input.eventBase?.traceId ? { traceId: input.eventBase.traceId } : {}),
      stepId: input.stepId,
      provider,
      model,
      ...(input.messages ? { messages: input.messages } : {}),
    };
    let out: CallModelOutput;
    try {
      out = await callModel(input);
    } catch (err) {
      notify(observers, 'modelCall', { ...origin, startedAt, durationMs: Date.now() - startedAt, ...failureType(err) });
      throw err;
    }
    const usage = pricedUsage(prices, model, out.usage);
    const metrics = out.step.metrics;
    notify(observers, 'modelCall', {
      ...origin,
      startedAt: metrics?.startedAt ?? startedAt,
      durationMs: metrics?.durationMs ?? Date.now() - startedAt,
      ...(metrics?.firstTokenMs !== undefined ? { firstTokenMs: metrics.firstTokenMs } : {}),
      usage,
      finishReason: out.finishReason,
      output: out.step,
    });
    return { ...out, usage, step: { ...out.step, usage } };
  };
}

/** runTool that reports each attempt to the observers. */
export function observedRunTool(
  runTool: (input: RunToolInput) => Promise<RunToolOutput>,
  observers: readonly RunObserver[],
): (input: RunToolInput) => Promise<RunToolOutput> {
  if (!observers.length) return runTool;
  return async (input) => {
    const startedAt = Date.now();
    const origin = {
      runId: input.runId,
      rootRunId: input.eventBase?.rootRunId,
      agent: input.eventBase?.agent,
      tenant: input.tenant,
      attempt: Context.current().info.attempt,
      tool: input.name,
      toolCallId: input.toolCallId,
      startedAt,
    };
    try {
      const out = await runTool(input);
      notify(observers, 'toolCall', {
        ...origin,
        durationMs: Date.now() - startedAt,
        outcome: out.isError ? 'error' : 'ok',
      });
      return out;
    } catch (err) {
      const { errorType } = failureType(err);
      notify(observers, 'toolCall', { ...origin, durationMs: Date.now() - startedAt, outcome: 'failed', errorType });
      throw err;
    }
  };
}
