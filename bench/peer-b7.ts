// PEER × B7 — Temporal actions of @temporalio/openai-agents, counted like Agio's in B7 (historyActions): a
// 10-step run (1 s model latency, a `bench_echo` activity between model calls) in both modes, run() and
// run({ stream: true }) followed by the peer's subscriber (WorkflowStreamClient.subscribe: a long-poll Update per
// poll, parked in the workflow until an item arrives); then that stream left open on the same run while the workflow
// waits idle (the bench workflow's 60 s wait for its subscriber's signal after `run_finished`: the peer has no
// approval wait of its own). And the heartbeats of a 30 s model call, Agio's and the peer's, from the pending
// activity's lastHeartbeatTime sampled every 200 ms (as tests/faults/model-heartbeats does).
import { temporal } from '@temporalio/proto';
import type { WorkflowHandle } from '@temporalio/client';
import { billableOf, eventActions, historyActions } from './b7-actions';
import type { PeerEnv } from './peer-env';
import type { BenchResult, Row } from './report';
import { eventTime, sleep, type BenchEnv } from './setup';

const EventType = temporal.api.enums.v1.EventType;
const STEPS = 10;
const LATENCY_MS = 1000;
const CALL_MS = 30_000;

/** Distinct lastHeartbeatTime values the server recorded for `activity` while `done` is pending. */
async function heartbeats(handle: WorkflowHandle, activity: string, done: Promise<unknown>): Promise<number> {
  const beats = new Set<number>();
  let finished = false;
  const settled = done.finally(() => (finished = true));
  settled.catch(() => undefined);
  while (!finished) {
    const { raw } = await handle.describe();
    for (const a of raw.pendingActivities ?? []) {
      const at = a.lastHeartbeatTime;
      if (a.activityType?.name === activity && at) beats.add(Number(at.seconds) * 1000 + (at.nanos ?? 0) / 1e6);
    }
    await sleep(200);
  }
  await settled;
  return beats.size;
}

export async function peerB7(env: BenchEnv, peer: PeerEnv): Promise<Pick<BenchResult, 'rows' | 'notes' | 'data'>> {
  const plan = (tag: string) => ({ steps: STEPS, latencyMs: LATENCY_MS, tag });
  // Action counts do not depend on load: everything runs at once.
  const [plain, streamed, agioBeats, peerBeats] = await Promise.all([
    (async () => {
      const { handle } = await peer.run(plan('pb7-run'), false);
      return historyActions(env, handle.workflowId);
    })(),
    (async () => {
      const handle = await peer.start(plan('pb7-stream'), true, true);
      const sub = peer.subscribe(handle.workflowId, 'pb7-stream', false);
      const output = await peer.alive(handle.result());
      if (output.modelCalls !== STEPS) throw new Error(`peer streaming run made ${output.modelCalls} model calls`);
      const { items } = await peer.alive(sub.done);
      // Split the history at the agent's last activity: before it the run, after it the idle wait.
      const events = (await handle.fetchHistory()).events ?? [];
      const completed = events.filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED).at(-1);
      const split = events.indexOf(completed!) + 1;
      const idleMs = eventTime(events.at(-1)!) - eventTime(events[split - 1]);
      // When each Update of the idle wait was accepted, in ms after its start (the wait adds one per item published).
      const updatesAtMs = events
        .slice(split)
        .filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)
        .map((e) => eventTime(e) - eventTime(events[split - 1]));
      const idle = eventActions(events.slice(split));
      return { run: eventActions(events.slice(0, split)), idle, idleMs, updatesAtMs, items };
    })(),
    (async () => {
      const run = await env.start({ steps: 1, latencyMs: CALL_MS, tag: 'pb7-agio-beats' });
      return heartbeats(env.client.workflow.getHandle(run.runId), 'callModel', run.result());
    })(),
    (async () => {
      const handle = await peer.start({ steps: 1, latencyMs: CALL_MS, tag: 'pb7-peer-beats' }, false);
      return heartbeats(handle, 'invokeModelActivity', peer.alive(handle.result()));
    })(),
  ]);
  env.log(`PEER B7: run() ${JSON.stringify(plain)}; streaming ${JSON.stringify(streamed)}`);
  env.log(`PEER B7: heartbeats of a ${CALL_MS / 1000} s model call: Agio ${agioBeats}, peer ${peerBeats}`);

  const rows: Row[] = [
    {
      metric: 'B7 peer run(): billable history events per agent step',
      value: billableOf(plain) / STEPS,
      unit: `actions (${plain.activities} activities, ${plain.timers} timers, ${plain.signals} signals, ${plain.updates} updates / ${STEPS} steps)`,
    },
    {
      metric: 'B7 peer streaming, one subscriber: billable history events per agent step',
      value: billableOf(streamed.run) / STEPS,
      unit: `actions (${streamed.run.activities} activities, ${streamed.run.signals} publish signals, ${streamed.run.updates} poll Updates / ${STEPS} steps)`,
    },
    {
      metric: 'B7 peer streaming: poll Updates per agent step, one subscriber',
      value: streamed.run.updates / STEPS,
      unit: 'updates (WorkflowExecutionUpdateAccepted; the peer follows a run by Update, not Query)',
    },
    {
      metric: 'B7 peer streaming: Queries + signals + Updates during an idle open stream',
      value: streamed.idle.updates + streamed.idle.signals,
      unit: `in a ${(streamed.idleMs / 1000).toFixed(0)} s idle wait (${streamed.idle.updates} Updates, ${streamed.idle.signals} signals, 0 Queries; plus the wait's own ${streamed.idle.timers} timer)`,
    },
    {
      metric: `B7 heartbeats of a ${CALL_MS / 1000} s model call, Agio (default limits)`,
      value: agioBeats,
      unit: 'heartbeats (distinct lastHeartbeatTime of callModel)',
    },
    {
      metric: `B7 heartbeats of a ${CALL_MS / 1000} s model call, peer`,
      value: peerBeats,
      unit: 'heartbeats (distinct lastHeartbeatTime of invokeModelActivity; no heartbeatTimeout set)',
    },
  ];
  return {
    rows,
    notes: [
      `B7: peer run() history ${JSON.stringify(plain)}; streaming run up to its last activity ${JSON.stringify(streamed.run)}, its idle wait ${JSON.stringify(streamed.idle)} over ${streamed.idleMs} ms (its Updates accepted ${streamed.updatesAtMs.join(', ')} ms into it); the subscriber got ${streamed.items} items`,
      "B7: the peer's subscriber polls the workflow with the `__temporal_workflow_stream_poll` Update, which the workflow parks until a new item is published, so an idle stream holds one accepted Update open and adds none while nothing is published (the client re-issues its long-poll RPC for the outcome, not an action); model activities heartbeat (every heartbeatTimeout / 2) only when a heartbeatTimeout is set, and the package sets none by default",
    ],
    data: {
      steps: STEPS,
      latencyMs: LATENCY_MS,
      plain,
      streamed,
      heartbeats: { callMs: CALL_MS, agio: agioBeats, peer: peerBeats },
    },
  };
}
