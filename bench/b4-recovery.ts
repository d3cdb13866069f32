// B4 — recovery: a 10-step run (200 ms model latency) whose worker process is stopped in the middle of a model
// call, by SIGTERM (graceful: the worker finishes what it holds within its 2 s grace time) or by SIGKILL; a
// replacement worker process is started at once (as a supervisor would). Reported: how long until the run's
// model is called again, and how much longer the run took than an undisturbed one.
import type { RunLimits } from '../common';
import { planOf } from './model';
import type { Benchmark, Row } from './report';
import { sleep, type BenchEnv } from './setup';

const STEPS = 10;
const LATENCY_MS = 200;
/** Kill while the model call of this step (0-based) is in flight. */
const KILL_AT_STEP = 3;

interface Scenario {
  name: string;
  signal: 'SIGTERM' | 'SIGKILL';
  limits?: Partial<RunLimits>;
}

interface Outcome {
  scenario: string;
  runMs: number;
  addedMs: number;
  shutdownMs: number;
  replacementStartupMs: number;
  /** Kill → the run's next chat-completions request (a retry of the interrupted call, or the next step). */
  resumeMs: number;
  /** Model requests this run made beyond its STEPS (interrupted calls that were made again). */
  repeatedModelCalls: number;
}

/** Requests of run `tag` seen so far with `assistants` assistant turns in their conversation. */
function requestsAt(env: BenchEnv, tag: string, from = 0): { index: number; receivedAt: number; assistants: number }[] {
  const out: { index: number; receivedAt: number; assistants: number }[] = [];
  env.model.requests.forEach((req, index) => {
    if (index < from || planOf(req)?.tag !== tag) return;
    const assistants = ((req.body?.messages ?? []) as { role: string }[]).filter((m) => m.role === 'assistant').length;
    out.push({ index, receivedAt: req.receivedAt, assistants });
  });
  return out;
}

async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 120_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

async function scenario(env: BenchEnv, s: Scenario, referenceMs: number, steps: number): Promise<Outcome> {
  const tag = `b4-${s.name}`;
  const firstRequest = env.model.requests.length;
  const t0 = Date.now();
  const run = await env.start({ steps, latencyMs: LATENCY_MS, tag }, s.limits);
  // Mid model call: the request of step KILL_AT_STEP arrived and the model is still "thinking" (200 ms).
  await waitFor('the model call to interrupt', () =>
    requestsAt(env, tag, firstRequest).find((r) => r.assistants === KILL_AT_STEP),
  );
  await sleep(LATENCY_MS / 4);
  const victim = env.worker;
  const killedAt = Date.now();
  const seenBefore = env.model.requests.length;
  victim.kill(s.signal);
  await victim.exited;
  const shutdownMs = Date.now() - killedAt;
  env.worker = await env.startWorker();
  const next = await waitFor('the run to call its model again', () => requestsAt(env, tag, seenBefore)[0]);
  const output = await run.result();
  const runMs = Date.now() - t0;
  const requests = requestsAt(env, tag, firstRequest).length;
  if (output.metrics.modelCalls !== steps)
    throw new Error(`run made ${output.metrics.modelCalls} model calls, expected ${steps}`);
  const outcome = {
    scenario: s.name,
    runMs,
    addedMs: runMs - referenceMs,
    shutdownMs,
    replacementStartupMs: env.worker.startupMs,
    resumeMs: next.receivedAt - killedAt,
    repeatedModelCalls: requests - steps,
  };
  env.log(`B4: ${s.name}: ${JSON.stringify(outcome)}`);
  return outcome;
}

export const b4: Benchmark = {
  id: 'B4',
  title: 'recovery after SIGTERM / SIGKILL of the worker mid model call',
  async run(env: BenchEnv) {
    const steps = env.quick ? 5 : STEPS;
    const references: number[] = [];
    for (let i = 0; i < 2; i++) {
      const t0 = Date.now();
      await env.run({ steps, latencyMs: LATENCY_MS, tag: `b4-ref-${i}` });
      references.push(Date.now() - t0);
    }
    const reference = Math.min(...references);
    const scenarios: Scenario[] = [
      { name: 'SIGTERM', signal: 'SIGTERM' },
      ...(env.quick ? [] : [{ name: 'SIGKILL (default 20 s model heartbeat timeout)', signal: 'SIGKILL' as const }]),
      { name: 'SIGKILL, modelHeartbeatTimeoutMs 2000', signal: 'SIGKILL', limits: { modelHeartbeatTimeoutMs: 2000 } },
    ];
    const outcomes: Outcome[] = [];
    for (const s of scenarios) outcomes.push(await scenario(env, s, reference, steps));
    const rows: Row[] = [
      { metric: `undisturbed ${steps}-step run (${LATENCY_MS} ms model)`, value: reference, unit: 'ms' },
    ];
    for (const o of outcomes) {
      rows.push(
        {
          metric: `${o.scenario}: kill → model called again`,
          value: o.resumeMs,
          unit: `ms (old worker gone after ${o.shutdownMs} ms, new one ready after ${o.replacementStartupMs} ms more)`,
        },
        {
          metric: `${o.scenario}: run time`,
          value: o.runMs,
          baseline: reference,
          ratio: o.runMs / reference,
          unit: `ms (+${o.addedMs} ms; ${o.repeatedModelCalls} model call(s) repeated)`,
        },
      );
    }
    return {
      status: 'ok',
      rows,
      notes: [
        "the replacement worker is a new process (tsx-transpiled; its start-up time is part of the recovery); after SIGKILL the interrupted model call is retried only when its heartbeat timeout expires (limits.modelHeartbeatTimeoutMs, 20 s by default), and the next workflow task of the run still goes to the dead worker's sticky queue until the sticky schedule-to-start timeout (Worker option stickyQueueScheduleToStartTimeout, 10 s by default) moves it to the normal queue; a graceful SIGTERM avoids both",
      ],
      data: { steps, latencyMs: LATENCY_MS, killAtStep: KILL_AT_STEP, referenceMs: reference, outcomes },
    };
  },
};
