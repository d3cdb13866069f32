// The bridge's metrics: HTTP requests by route and status, quota refusals, open SSE streams and their upstream readers,
// and the live lane's lag (from an event's or delta's timestamp to the bridge receiving it off the lane).
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { LiveLane } from '../live/lane';

/** Buckets of the lane's lag (seconds): in process it is well under a millisecond, over NATS a few. */
const LAG_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** What the bridge's gauges read when Prometheus scrapes. */
export interface BridgeGauges {
  openStreams(): number;
  readers(): { activeReaders: number; subscribers: number };
}

/** A bridge's metrics. */
export interface BridgeMetrics {
  registry: Registry;
  /** One answered request (`route`: the route's pattern, e.g. `/runs/:id`). */
  request(method: string, route: string, status: number, seconds: number): void;
  /** A request refused at a quota (its name, e.g. maxStreamsPerTenant). */
  quotaRefused(quota: string): void;
  /** The lane, measured: every delta and event the bridge receives off it observes its lag. */
  measuredLane(lane: LiveLane): LiveLane;
  /** The registry's metrics in Prometheus's text format. */
  text(): Promise<string>;
}

/** Creates a bridge's metrics (`processMetrics`: with the process's own CPU, memory and event loop). */
export function bridgeMetrics(gauges: BridgeGauges, opts: { processMetrics?: boolean } = {}): BridgeMetrics {
  const registry = new Registry();
  const registers = [registry];
  if (opts.processMetrics) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'agio_bridge_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status (an SSE stream counts when it ends).',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const durations = new Histogram({
    name: 'agio_bridge_http_request_duration_seconds',
    help: 'HTTP request durations by method and route pattern (SSE streams excluded).',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const refusals = new Counter({
    name: 'agio_bridge_quota_refusals_total',
    help: 'Requests refused with 429 at a per-tenant quota, by quota.',
    labelNames: ['quota'],
    registers,
  });
  const lag = new Histogram({
    name: 'agio_bridge_lane_lag_seconds',
    help: 'Live lane lag: from a delta (kind=delta) or durable event (kind=event) being stamped to this bridge receiving it.',
    labelNames: ['kind'],
    buckets: LAG_BUCKETS,
    registers,
  });
  new Gauge({
    name: 'agio_bridge_open_streams',
    help: 'SSE event streams this bridge is serving now.',
    registers,
    collect() {
      this.set(gauges.openStreams());
    },
  });
  new Gauge({
    name: 'agio_bridge_stream_readers',
    help: 'Upstream run readers this bridge holds now (one per run followed, shared by its streams).',
    registers,
    collect() {
      this.set(gauges.readers().activeReaders);
    },
  });
  const observeLag = (kind: string, timestamp: number) =>
    lag.observe({ kind }, Math.max(0, (Date.now() - timestamp) / 1000));
  return {
    registry,
    request(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      if (!route.endsWith('/events')) durations.observe({ method, route }, seconds);
    },
    quotaRefused: (quota) => refusals.inc({ quota }),
    measuredLane: (lane) => ({
      publish: (rootRunId, events) => lane.publish(rootRunId, events),
      endStep: (rootRunId, stepId, attempt) => lane.endStep(rootRunId, stepId, attempt),
      publishEvents: (rootRunId, events) => lane.publishEvents(rootRunId, events),
      // Deltas of a step that had ended when handed over are retained ones a late reader catches up on: no lag.
      subscribe: (rootRunId, after, onDelta) =>
        lane.subscribe(rootRunId, after, (delta, stepEnded) => {
          if (!stepEnded) observeLag('delta', delta.event.timestamp);
          onDelta(delta, stepEnded);
        }),
      followEvents: (rootRunId, onEvents) =>
        lane.followEvents(rootRunId, (events) => {
          for (const e of events) observeLag('event', e.timestamp);
          onEvents(events);
        }),
    }),
    text: () => registry.metrics(),
  };
}
