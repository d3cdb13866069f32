// How workflow code reaches the stores during an outage (docs/ARCHITECTURE.md, "Stores"). A store call is a local
// activity, cheap in history, but one that keeps failing inside a workflow task holds that task open: the SDK
// heartbeats it (three events every 8 s) and a cancel waits behind it. So each call gets two seconds as a local
// activity; a call the run needs then waits the outage out as a regular activity (its retries cost no history, and a
// cancel ends it at once), and a best-effort write is given up.
import {
  CancellationScope,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
} from '@temporalio/workflow';
import { jsonBytes } from '../../common';
import type { AgioActivities } from '../../common/contracts/activities';

/**
 * The patch under which store calls are bounded: waited out as a regular activity past 2 s, and best-effort writes (a
 * failed or cancelled run's last record, the event log) given up after 3 s. Runs started before it retry their store
 * calls inside the workflow task for as long as the store is down.
 */
export const BOUNDED_STORE_CALLS_PATCH = 'agio-bounded-store-calls';

/**
 * Store calls of runs started before {@link BOUNDED_STORE_CALLS_PATCH}: retried with backoff capped at 30 s and no
 * attempt cap, inside the workflow task (the 30 s backoff is below the SDK's one-minute local retry threshold).
 */
export const STORE_CALL = {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '30s' },
} as const;

/**
 * A store call's first try: a local activity, a few quick attempts, 2 s at most. While it runs it holds the workflow
 * task, and a signal or a cancel that arrives meanwhile waits for that task.
 */
const QUICK = {
  scheduleToCloseTimeout: '2s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '1s' },
} as const;

/** A best-effort write: a local activity given up after 3 s (a terminal event waits no longer for it). */
const BEST_EFFORT = {
  scheduleToCloseTimeout: '3s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '1s' },
} as const;

/** Waiting an outage out: retried by the server, with backoff capped at 30 s, for as long as it lasts. */
const PATIENT = {
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
} as const;

/**
 * Waiting out an outage with an input too large to record in history (a regular activity's input is recorded):
 * a local activity whose every retry past the first is a workflow timer (localRetryThreshold), each attempt short
 * enough to need no workflow-task heartbeat, backoff capped at a minute (about five events a minute).
 */
const PATIENT_LOCAL = {
  startToCloseTimeout: '5s',
  localRetryThreshold: '300ms',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '60s' },
} as const;

/** Largest input a waited call records in history as a regular activity's input (Temporal caps a payload at 2 MiB). */
export const MAX_RECORDED_STORE_INPUT_BYTES = 256 * 1024;

/** The store activities workflow code calls. */
export type StoreActivities = Pick<
  AgioActivities,
  'recordRun' | 'persistSteps' | 'loadConversation' | 'logEvents' | 'storeCompacted'
>;
type StoreCall = keyof StoreActivities;

const legacy = proxyLocalActivities<AgioActivities>(STORE_CALL);
const quick = proxyLocalActivities<AgioActivities>(QUICK);
const bestEffort = proxyLocalActivities<AgioActivities>(BEST_EFFORT);
const patient = proxyActivities<AgioActivities>(PATIENT);
const patientLocal = proxyLocalActivities<AgioActivities>(PATIENT_LOCAL);

/**
 * Calls `name` with `input`: a few seconds locally, then waited out where waiting costs no workflow task. A cancel
 * of the run ends the wait even where the call was made not to be cancelled (a run's start): the store is down, and
 * the run would otherwise wait for it to come back before it could end.
 */
async function waitedCall(name: StoreCall, input: unknown): Promise<unknown> {
  const call = (via: AgioActivities) => (via[name] as (input: unknown) => Promise<unknown>)(input);
  try {
    return await call(quick);
  } catch (err) {
    if (isCancellation(err)) throw err;
  }
  const waiting = new CancellationScope();
  const cancelled = CancellationScope.current().cancelRequested.catch((err: unknown) => {
    waiting.cancel();
    throw err;
  });
  return Promise.race([
    waiting.run(() => call(jsonBytes(input) <= MAX_RECORDED_STORE_INPUT_BYTES ? patient : patientLocal)),
    cancelled,
  ]);
}

const waited = Object.fromEntries(
  (['recordRun', 'persistSteps', 'loadConversation', 'logEvents', 'storeCompacted'] as const).map((name) => [
    name,
    (input: unknown) => waitedCall(name, input),
  ]),
) as unknown as StoreActivities;

/** Store calls the run needs done: they wait a store outage out (bounded per attempt; see the file comment). */
export function waitedStore(): StoreActivities {
  return patched(BOUNDED_STORE_CALLS_PATCH) ? waited : legacy;
}

/** Store writes the run can do without (readers fall back to the events Query): given up after 3 s. */
export function bestEffortStore(): StoreActivities {
  return patched(BOUNDED_STORE_CALLS_PATCH) ? bestEffort : legacy;
}

/** The regular activity that writes a root's terminal event to its log (see event-log.ts): bounded to 30 s. */
export function tailStore(): Pick<StoreActivities, 'logEvents'> {
  return patched(BOUNDED_STORE_CALLS_PATCH) ? boundedTail : legacyTail;
}
const legacyTail = proxyActivities<AgioActivities>(STORE_CALL);
const boundedTail = proxyActivities<AgioActivities>({ ...PATIENT, scheduleToCloseTimeout: '30s' });
