// The worker's run metrics as pure logic: events a run appends (starts, steps, ends, copies of a nested run's start
// and end), what a run's waiting search attribute says, and model call attempts in an outage, read back from the
// registry's text.
import { Registry } from 'prom-client';
import type { WireEvent } from '../../common';
import type { ModelCallRecord } from '../../activities/observer';
import { runEventMetrics } from '../../telemetry/metrics-run-events';
import { callMetrics } from '../../telemetry/metrics-calls';
import { waitingOn } from '../../workflows/lifecycle/waiting-index';

/** The value of one series in the registry's text (undefined when absent). */
async function value(registry: Registry, series: string): Promise<number | undefined> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

let clock = 1_000_000;
const now = () => clock;
const event = (type: string, runId: string, extra: Partial<WireEvent> = {}): WireEvent =>
  ({ type, runId, rootRunId: 'root', agent: 'a', depth: 0, offset: 0, timestamp: clock, ...extra }) as WireEvent;

describe('run event metrics', () => {
  it('counts runs ended by status and steps by role', async () => {
    const registry = new Registry();
    const { runEvents } = runEventMetrics(registry);
    runEvents!([
      event('RUN_STARTED', 'r1'),
      event('STEP_COMPLETED', 'r1', { snapshot: { role: 'assistant' } } as Partial<WireEvent>),
      event('RUN_FAILED', 'r1'),
    ]);
    expect(await value(registry, 'agio_runs_started_total{agent="a",depth="0"}')).toBe(1);
    expect(await value(registry, 'agio_steps_total{agent="a",role="assistant"}')).toBe(1);
    expect(await value(registry, 'agio_runs_ended_total{agent="a",depth="0",status="failed"}')).toBe(1);
  });

  it("counts a nested run once: its own log's events, not the copies in its parent's log", async () => {
    const registry = new Registry();
    const { runEvents } = runEventMetrics(registry);
    const nested = { depth: 1, agent: 'child' };
    runEvents!([event('RUN_STARTED', 'root/tool/1-c', { ...nested, ownLog: true })]);
    runEvents!([event('RUN_STARTED', 'root/tool/1-c', nested)]);
    runEvents!([event('RUN_COMPLETED', 'root/tool/1-c', nested)]);
    runEvents!([event('RUN_COMPLETED', 'root/tool/1-c', { ...nested, ownLog: true })]);
    expect(await value(registry, 'agio_runs_started_total{agent="child",depth="1"}')).toBe(1);
    expect(await value(registry, 'agio_runs_ended_total{agent="child",depth="1",status="completed"}')).toBe(1);
  });
});

describe("a run's waiting search attribute", () => {
  const state = { paused: false, parked: false, pendingApprovals: 0 };
  it('says approval while a call waits for a person, paused:<reason> while paused, and nothing once finished', () => {
    expect(waitingOn(state)).toEqual([]);
    expect(waitingOn({ ...state, pendingApprovals: 2 })).toEqual(['approval']);
    expect(waitingOn({ ...state, paused: true, pauseReason: 'budget' })).toEqual(['paused:budget']);
    // free text from whoever paused is not a label value
    expect(waitingOn({ ...state, paused: true, pauseReason: 'lunch', pendingApprovals: 1 })).toEqual([
      'approval',
      'paused:operator',
    ]);
    expect(waitingOn({ ...state, paused: true, pendingApprovals: 1, finished: true })).toEqual([]);
    expect(waitingOn({ ...state, pendingCallbacks: 1 })).toEqual(['callback']);
    expect(waitingOn({ ...state, paused: true, pendingApprovals: 1, pendingCallbacks: 2 })).toEqual([
      'approval',
      'callback',
      'paused:operator',
    ]);
  });
});

describe('model call metrics', () => {
  const attempt = (n: number, extra: Partial<ModelCallRecord> = {}): ModelCallRecord => ({
    runId: 'r',
    stepId: 's',
    attempt: n,
    provider: 'openai',
    model: 'gpt-4o',
    startedAt: clock,
    durationMs: 500,
    errorType: 'ModelRateLimited',
    retryable: true,
    ...extra,
  });
  const outage = 'agio_model_outage_calls{gen_ai_provider_name="openai",error_type="ModelRateLimited"}';

  it('counts a call in an outage from its third failed attempt until it succeeds', async () => {
    const registry = new Registry();
    const { modelCall } = callMetrics(registry, now);
    modelCall!(attempt(1));
    modelCall!(attempt(2));
    expect(await value(registry, outage)).toBeUndefined();
    modelCall!(attempt(3));
    expect(await value(registry, outage)).toBe(1);
    expect(
      await value(registry, 'agio_model_retries_total{gen_ai_provider_name="openai",error_type="ModelRateLimited"}'),
    ).toBe(3);
    modelCall!(
      attempt(4, {
        errorType: undefined,
        retryable: undefined,
        usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 },
      }),
    );
    expect(await value(registry, outage)).toBeUndefined();
    expect(
      await value(
        registry,
        'agio_model_outage_attempts_total{gen_ai_provider_name="openai",error_type="ModelRateLimited"}',
      ),
    ).toBe(1);
  });

  it('forgets an outage call whose retries went to another worker', async () => {
    const registry = new Registry();
    const { modelCall } = callMetrics(registry, now);
    modelCall!(attempt(3));
    clock += 10 * 60_000;
    expect(await value(registry, outage)).toBeUndefined();
  });
});
