// Prometheus metrics of model and tool calls, fed by the worker's run observer (activities/observer.ts): each attempt
// once. Names follow the OpenTelemetry GenAI semantic conventions translated to Prometheus where one exists
// (gen_ai.client.operation.duration → gen_ai_client_operation_duration_seconds, dots in labels → underscores).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { MODEL_OUTAGE_ANNOUNCED_FROM_ATTEMPT, MODEL_RETRY_MAX_INTERVAL_MS } from '../common/errors';
import type { ModelCallRecord, RunObserver, ToolCallRecord } from '../activities/observer';

/** The GenAI conventions' buckets for operation durations (seconds). */
export const DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
/** The GenAI conventions' buckets for token counts. */
export const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];

/** A call that failed this long ago with nothing since no longer counts as in an outage (its retry went elsewhere). */
const OUTAGE_STALE_MS = 2 * MODEL_RETRY_MAX_INTERVAL_MS + 30_000;

const MODEL = ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model'] as const;
const PROVIDER = ['gen_ai_provider_name', 'error_type'] as const;

/** The model and tool call metrics of one registry, and the observer that feeds them. */
export function callMetrics(registry: Registry, now: () => number = Date.now): RunObserver {
  const registers = [registry];
  const duration = new Histogram({
    name: 'gen_ai_client_operation_duration_seconds',
    help: 'GenAI operation duration: one model call attempt, from request to its last chunk or failure.',
    labelNames: [...MODEL, 'error_type'],
    buckets: DURATION_BUCKETS,
    registers,
  });
  const tokenUsage = new Histogram({
    name: 'gen_ai_client_token_usage',
    help: 'Number of input and output tokens used per model call.',
    labelNames: [...MODEL, 'gen_ai_token_type'],
    buckets: TOKEN_BUCKETS,
    registers,
  });
  const firstChunk = new Histogram({
    name: 'gen_ai_client_operation_time_to_first_chunk_seconds',
    help: 'Time to first token: from the request to the first chunk of the streamed answer.',
    labelNames: MODEL,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const tokens = new Counter({
    name: 'agio_model_tokens_total',
    help: 'Tokens of successful model calls by type: input, output, and the cached_input and reasoning parts of them.',
    labelNames: ['gen_ai_provider_name', 'gen_ai_request_model', 'type'],
    registers,
  });
  const cost = new Counter({
    name: 'agio_model_cost_usd_total',
    help: 'Cost of model calls in US dollars, by the price table (calls of models without a price add nothing).',
    labelNames: ['gen_ai_provider_name', 'gen_ai_request_model'],
    registers,
  });
  const unpriced = new Counter({
    name: 'agio_model_calls_unpriced_total',
    help: 'Successful model calls whose model has no price in the price table (their cost is unknown).',
    labelNames: ['gen_ai_provider_name', 'gen_ai_request_model'],
    registers,
  });
  const retries = new Counter({
    name: 'agio_model_retries_total',
    help: 'Failed model call attempts that Temporal tries again, by provider and error type.',
    labelNames: PROVIDER,
    registers,
  });
  const outages = new Counter({
    name: 'agio_model_outage_attempts_total',
    help: `Failed attempts of model calls in an outage (attempt ${MODEL_OUTAGE_ANNOUNCED_FROM_ATTEMPT} or later, announced with MODEL_UNAVAILABLE).`,
    labelNames: PROVIDER,
    registers,
  });
  // Calls whose last attempt failed into an outage, by call (run and step); a success or a final failure ends it.
  const inOutage = new Map<string, { provider: string; errorType: string; at: number }>();
  new Gauge({
    name: 'agio_model_outage_calls',
    help: 'Model calls on this worker waiting out a provider outage now, by provider and error type.',
    labelNames: PROVIDER,
    registers,
    collect() {
      this.reset();
      for (const [key, call] of inOutage) {
        if (now() - call.at > OUTAGE_STALE_MS) inOutage.delete(key);
        else this.inc({ gen_ai_provider_name: call.provider, error_type: call.errorType });
      }
    },
  });
  const toolDuration = new Histogram({
    name: 'gen_ai_execute_tool_duration_seconds',
    help: 'Tool call attempt duration, by tool and outcome (ok; error: an error result the model reads; failed: threw).',
    labelNames: ['gen_ai_tool_name', 'outcome'],
    buckets: DURATION_BUCKETS,
    registers,
  });
  const toolErrors = new Counter({
    name: 'agio_tool_errors_total',
    help: 'Tool call attempts that did not end ok, by tool, outcome (error or failed) and error type.',
    labelNames: ['gen_ai_tool_name', 'outcome', 'error_type'],
    registers,
  });

  const modelCall = (r: ModelCallRecord) => {
    const labels = { gen_ai_operation_name: 'chat', gen_ai_provider_name: r.provider, gen_ai_request_model: r.model };
    const model = { gen_ai_provider_name: r.provider, gen_ai_request_model: r.model };
    const key = `${r.runId}#${r.stepId}`;
    duration.observe(r.errorType ? { ...labels, error_type: r.errorType } : labels, r.durationMs / 1000);
    if (r.errorType) {
      const failed = { gen_ai_provider_name: r.provider, error_type: r.errorType };
      if (!r.retryable) return void inOutage.delete(key);
      retries.inc(failed);
      if (r.attempt >= MODEL_OUTAGE_ANNOUNCED_FROM_ATTEMPT) {
        outages.inc(failed);
        inOutage.set(key, { provider: r.provider, errorType: r.errorType, at: now() });
      }
      return;
    }
    inOutage.delete(key);
    if (r.firstTokenMs !== undefined) firstChunk.observe(labels, r.firstTokenMs / 1000);
    const usage = r.usage;
    if (!usage) return;
    tokenUsage.observe({ ...labels, gen_ai_token_type: 'input' }, usage.promptTokens);
    tokenUsage.observe({ ...labels, gen_ai_token_type: 'output' }, usage.completionTokens);
    tokens.inc({ ...model, type: 'input' }, usage.promptTokens);
    tokens.inc({ ...model, type: 'output' }, usage.completionTokens);
    if (usage.cachedPromptTokens) tokens.inc({ ...model, type: 'cached_input' }, usage.cachedPromptTokens);
    if (usage.reasoningTokens) tokens.inc({ ...model, type: 'reasoning' }, usage.reasoningTokens);
    if (usage.costUsd !== undefined) cost.inc(model, usage.costUsd);
    if (usage.costUnknown) unpriced.inc(model);
  };

  const toolCall = (r: ToolCallRecord) => {
    toolDuration.observe({ gen_ai_tool_name: r.tool, outcome: r.outcome }, r.durationMs / 1000);
    if (r.outcome !== 'ok')
      toolErrors.inc({ gen_ai_tool_name: r.tool, outcome: r.outcome, error_type: r.errorType ?? 'ToolError' });
  };
  return { modelCall, toolCall };
}
