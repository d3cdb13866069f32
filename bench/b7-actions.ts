// B7 — Temporal actions: what one agent step costs in billable Temporal actions (activities, local activities, timers,
// signals, updates, child workflows, from the run's history; the events Queries of one open stream, counted by its
// reader), and what one open stream costs per hour on a run waiting for an approval. Two readers follow the same
// runs side by side in this process: the one bridges use now (the root's events pushed on the live lane over NATS,
// the Query only to catch up) and the one they used before (the events Query polled: back to back while events flow,
// every 250 ms when quiet, every second once idle). Heartbeats are not in the history and not counted here.
import { temporal } from '@temporalio/proto';
import { StreamHub } from '../bridge/stream-hub';
import type { WireEvent } from '../common';
import { NatsLane } from '../live/nats-lane';
import { planInput } from './model';
import type { Benchmark, Row } from './report';
import { benchAgent, sleep, type BenchEnv, type History } from './setup';

const EventType = temporal.api.enums.v1.EventType;
const STEPS = 10;
const LATENCY_MS = 1000;

/** The billable history events of a run, by kind. */
export type Actions = Record<'activities' | 'localActivities' | 'timers' | 'signals' | 'updates' | 'children', number>;
type HistoryEvent = NonNullable<History['events']>[number];

/** The billable events among `events` (a whole history or a slice of one), by kind, and how many events that was. */
export function eventActions(events: HistoryEvent[]): Actions & { historyEvents: number } {
  const count = (type: number, also: (e: (typeof events)[number]) => boolean = () => true) =>
    events.filter((e) => e.eventType === type && also(e)).length;
  const marker = (e: (typeof events)[number]) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity';
  return {
    activities: count(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED),
    localActivities: count(EventType.EVENT_TYPE_MARKER_RECORDED, marker),
    timers: count(EventType.EVENT_TYPE_TIMER_STARTED),
    signals: count(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED),
    updates: count(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED),
    children: count(EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED),
    historyEvents: events.length,
  };
}

/** The billable history events of a whole run (any workflow on the bench's dev server, the peer's too), by kind. */
export async function historyActions(env: BenchEnv, workflowId: string): Promise<Actions & { historyEvents: number }> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  return eventActions(history.events ?? []);
}

/** The billable actions in a count: every kind except the event total. */
export const billableOf = (actions: Actions & { historyEvents: number }): number =>
  Object.values(actions).reduce((a, b) => a + b, 0) - actions.historyEvents;

/** A reader of one run's stream; resolves with its events when the stream ends. */
function read(hub: StreamHub, runId: string): Promise<WireEvent[]> {
  return new Promise((resolve, reject) => {
    const events: WireEvent[] = [];
    hub.subscribe('default', runId, -1, {
      onEvent: (event) => events.push(event),
      onEnd: (error) => (error ? reject(error) : resolve(events)),
    });
  });
}

/** Whether a stream delivered every durable offset once, in order. */
const whole = (events: WireEvent[]) => events.every((e, i) => e.offset === i);

export const b7: Benchmark = {
  id: 'B7',
  title: 'Temporal actions per agent step and per hour of an idle open stream',
  async run(env: BenchEnv) {
    const nats = await env.natsService();
    const lane = await NatsLane.connect(nats.nats.url);
    const pushed = new StreamHub(env.agio, undefined, lane);
    const polled = new StreamHub(env.agio);
    const idleMs = env.quick ? 20_000 : 60_000;
    try {
      // An agent step: STEPS model calls of LATENCY_MS, a tool call between each two.
      const run = await nats.agio.start(
        benchAgent,
        planInput({ steps: STEPS, latencyMs: LATENCY_MS, tag: 'b7-steps' }),
        { limits: { maxSteps: STEPS + 5 } },
      );
      const [pushedEvents, polledEvents] = await Promise.all([read(pushed, run.runId), read(polled, run.runId)]);
      const actions = await historyActions(env, run.runId);
      const billable = billableOf(actions);

      // An idle stream: a run waiting for an approval, followed for idleMs.
      const idle = await nats.agio.start(benchAgent, planInput({ steps: 2, tag: 'b7-idle' }), {
        permissions: [{ tool: 'bench_echo', action: 'ask' }],
        limits: { maxSteps: 7 },
      });
      const waiting = Promise.all([read(pushed, idle.runId), read(polled, idle.runId)]);
      const asked = async () => (await idle.state()) as { pendingApprovals?: { toolCallId: string }[] };
      let pending: { toolCallId: string }[] = [];
      for (let i = 0; i < 200 && !pending.length; i++) {
        pending = (await asked()).pendingApprovals ?? [];
        if (!pending.length) await sleep(100);
      }
      if (!pending.length) throw new Error('the idle run never asked for an approval');
      await sleep(2000); // both readers have the request
      const [q0, p0] = [pushed.stats().queries, polled.stats().queries];
      await sleep(idleMs);
      const [q1, p1] = [pushed.stats().queries, polled.stats().queries];
      await idle.approve(pending[0].toolCallId, { by: 'bench' });
      const [idlePushed, idlePolled] = await waiting;
      const perHour = (n: number) => Math.round((n * 3_600_000) / idleMs);

      const rows: Row[] = [
        {
          metric: 'billable history events per agent step (activities, local activities, timers, signals, updates)',
          value: billable / STEPS,
          unit: 'actions',
        },
        { metric: 'events Queries per agent step, one open stream, pushed', value: q0 / STEPS, unit: 'queries' },
        {
          metric: 'events Queries per agent step, one open stream, polled (before)',
          value: p0 / STEPS,
          unit: 'queries',
        },
        {
          metric: 'events Queries per hour, idle stream on a run waiting for approval, pushed',
          value: perHour(q1 - q0),
          unit: 'queries/h',
        },
        {
          metric: 'events Queries per hour, idle stream on a run waiting for approval, polled (before)',
          value: perHour(p1 - p0),
          unit: 'queries/h',
        },
      ];
      return {
        status: 'ok',
        rows,
        notes: [
          `a ${STEPS}-step run (${LATENCY_MS} ms model latency): history ${JSON.stringify(actions)}`,
          `idle window ${idleMs / 1000} s: pushed ${q1 - q0} Queries, polled ${p1 - p0}; extrapolated to an hour`,
          `every stream whole and in order: ${[pushedEvents, polledEvents, idlePushed, idlePolled].every(whole)}`,
          'heartbeats are not in the history and not counted here',
        ],
        data: {
          actions,
          steps: STEPS,
          idleMs,
          pushed: { step: q0, idle: q1 - q0 },
          polled: { step: p0, idle: p1 - p0 },
        },
      };
    } finally {
      pushed.close();
      polled.close();
      await lane.close();
    }
  },
};
