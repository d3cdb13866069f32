// The benchmark's workflow bundle: Agio's workflows, plus a bare workflow that gives Temporal's own floor on
// this machine (the same number of activity round trips per step as an Agio step, and nothing else).
import { proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';

export * from '../workflows';

const { benchNoop } = proxyActivities<{ benchNoop(i: number): Promise<number> }>({ startToCloseTimeout: '1 minute' });
const local = proxyLocalActivities<{ benchNoop(i: number): Promise<number> }>({ startToCloseTimeout: '10 seconds' });

/** `steps` times: two no-op activities in a row (like callModel then runTool), nothing else. */
export async function benchFloor(steps: number): Promise<number> {
  let sum = 0;
  for (let i = 0; i < steps; i++) {
    sum += await benchNoop(i);
    sum += await benchNoop(i);
  }
  return sum;
}

/**
 * `steps` times: a no-op activity then a no-op local activity, nothing else: the least Temporal does for an agent
 * step that calls a quick tool (the model call is an activity, the tool a local activity). B5's floor.
 */
export async function benchStepFloor(steps: number): Promise<number> {
  let sum = 0;
  for (let i = 0; i < steps; i++) {
    sum += await benchNoop(i);
    sum += await local.benchNoop(i);
  }
  return sum;
}

/** `timers` workflow timers of `ms` each, one after another (how late the server fires them). */
export async function benchTimers(timers: number, ms: number): Promise<void> {
  for (let i = 0; i < timers; i++) await sleep(ms);
}
