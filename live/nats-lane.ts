// The live lane across processes: NATS JetStream. Workers publish each root run's deltas, and the ends of its model
// calls, on one subject per root run (`agio.live.<root, base64url>`) of one in-memory stream that keeps them for
// ten minutes (256 MiB at most). Any bridge reads them back from any position: the stream's sequence is the lane
// position, so a client's Last-Event-ID resumes on whichever bridge it reconnects to. The lane is a live view: a
// publish that fails (NATS down) is dropped, and the committed step (STEP_COMPLETED, in the durable log) carries the
// whole text. Durable events go over core NATS (`agio.events.<root>`, one message per event, kept nowhere): a bridge
// hears them as the root appends them, and one it missed (a reconnect, a message over NATS's size limit) is read by
// Query.
import type { ConsumerMessages, JetStreamClient } from '@nats-io/jetstream';
import { optionalPackage } from '../common/optional-package';
import type { AgioEvent, EventDraft } from '../common';
import { laneStepKey, type EventsFollow, type LaneDelta, type LiveLane } from './lane';

type NatsConnection = Awaited<ReturnType<typeof import('@nats-io/transport-node').connect>>;

/** The NATS packages (optional peer dependencies), loaded when a lane is first used. */
function nats(): typeof import('@nats-io/jetstream') & Pick<typeof import('@nats-io/transport-node'), 'connect'> {
  const neededFor = 'The NATS live lane (AGIO_NATS_URL)';
  const install = ['@nats-io/transport-node@3.4.0', '@nats-io/jetstream@3.4.0'];
  const load = <T>(name: string) => optionalPackage<T>(name, neededFor, install);
  const { connect } = load<typeof import('@nats-io/transport-node')>('@nats-io/transport-node');
  return { ...load<typeof import('@nats-io/jetstream')>('@nats-io/jetstream'), connect };
}

/** The JetStream stream that holds every root run's live lane. */
export const LIVE_STREAM = 'AGIO_LIVE';
const SUBJECT_PREFIX = 'agio.live';
/** How long deltas are kept for readers that resume (one who comes back later gets the committed steps). */
const MAX_AGE_MS = 10 * 60_000;
/**
 * The most the stream holds in NATS's memory; the oldest deltas go first (50 streams at 100 tokens/s fill it in
 * minutes).
 */
const MAX_BYTES = 256 * 1024 * 1024;

/** What a message on a root's subject holds: a delta, or the end of a model call. */
type LaneMessage = { delta: EventDraft } | { end: string };

const subjectOf = (rootRunId: string) => `${SUBJECT_PREFIX}.${Buffer.from(rootRunId).toString('base64url')}`;
const eventsSubjectOf = (rootRunId: string) => `agio.events.${Buffer.from(rootRunId).toString('base64url')}`;

/** A live lane on NATS JetStream. */
export class NatsLane implements LiveLane {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly log: (msg: string) => void,
  ) {}

  /** Connects to NATS (reconnecting for ever if it goes away) and makes sure the stream exists. */
  static async connect(url: string, log: (msg: string) => void = (m) => console.warn(m)): Promise<NatsLane> {
    const { connect, jetstream, jetstreamManager, StorageType, RetentionPolicy, DiscardPolicy } = nats();
    const nc = await connect({ servers: url, name: 'agio', maxReconnectAttempts: -1, reconnectTimeWait: 500 });
    const jsm = await jetstreamManager(nc);
    const config = {
      name: LIVE_STREAM,
      subjects: [`${SUBJECT_PREFIX}.>`],
      storage: StorageType.Memory,
      retention: RetentionPolicy.Limits,
      max_age: MAX_AGE_MS * 1_000_000,
      max_bytes: MAX_BYTES,
      discard: DiscardPolicy.Old,
      num_replicas: 1,
    };
    const ensureStream = () => jsm.streams.add(config).catch(async () => jsm.streams.update(LIVE_STREAM, config));
    await ensureStream();
    // A NATS server that restarted has lost the in-memory stream: make it again, or deltas would go nowhere.
    void (async () => {
      for await (const status of nc.status())
        if (status.type === 'reconnect') await ensureStream().catch(() => undefined);
    })();
    return new NatsLane(nc, jetstream(nc), log);
  }

  publish(rootRunId: string, events: EventDraft[]): void {
    for (const delta of events) this.send(rootRunId, { delta });
  }

  endStep(rootRunId: string, stepId: string, attempt: number): void {
    this.send(rootRunId, { end: laneStepKey({ stepId, attempt }) });
  }

  subscribe(rootRunId: string, after: number, onDelta: (delta: LaneDelta, stepEnded: boolean) => void): () => void {
    let messages: ConsumerMessages | undefined;
    let closed = false;
    void this.follow(rootRunId, after, onDelta, (m) => {
      messages = m;
      if (closed) void m.close();
    }).catch((err: unknown) => {
      if (!closed) this.log(`agio: live lane of ${rootRunId} stopped: ${(err as Error).message}`);
    });
    return () => {
      closed = true;
      void messages?.close();
    };
  }

  publishEvents(rootRunId: string, events: AgioEvent[]): void {
    const subject = eventsSubjectOf(rootRunId);
    for (const event of events) {
      try {
        this.nc.publish(subject, JSON.stringify(event));
      } catch {
        // closed connection, or an event over NATS's payload limit: readers catch up by Query
      }
    }
  }

  followEvents(rootRunId: string, onEvents: (events: AgioEvent[]) => void): EventsFollow {
    const sub = this.nc.subscribe(eventsSubjectOf(rootRunId), {
      callback: (err: Error | null, m: { string(): string }) => {
        if (!err) onEvents([JSON.parse(m.string()) as AgioEvent]);
      },
    });
    // Once the server has the subscription (a flush round trip), every event published later reaches it.
    const ready = this.nc.flush().catch(() => undefined);
    return { ready, close: () => sub.unsubscribe() };
  }

  /** Closes the connection: pending publishes are flushed first, for at most two seconds (NATS may be gone). */
  async close(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, 2000)));
    await Promise.race([this.nc.drain().catch(() => undefined), late]);
    clearTimeout(timer);
    if (!this.nc.isClosed()) await this.nc.close().catch(() => undefined);
  }

  private send(rootRunId: string, message: LaneMessage): void {
    // A core NATS publish, which the stream captures: no wait for JetStream's acknowledgement per delta (a lost
    // delta costs nothing; the committed step carries the whole text). While NATS is away the client buffers a
    // little and then drops; never the run, never the model stream.
    try {
      this.nc.publish(subjectOf(rootRunId), JSON.stringify(message));
    } catch {
      // closed connection: dropped
    }
  }

  /**
   * Reads the root's messages after `after`. Those already there when the reader starts are held until it has them
   * all, so each comes with whether its model call had ended by then; later ones are handed over as they arrive.
   */
  private async follow(
    rootRunId: string,
    after: number,
    onDelta: (delta: LaneDelta, stepEnded: boolean) => void,
    opened: (m: ConsumerMessages) => void,
  ): Promise<void> {
    const { DeliverPolicy } = nats();
    const consumer = await this.js.consumers.get(LIVE_STREAM, {
      filter_subjects: subjectOf(rootRunId),
      ...(after >= 0
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: after + 1 }
        : { deliver_policy: DeliverPolicy.All }),
    });
    const retained = (await consumer.info()).num_pending;
    const messages = await consumer.consume();
    opened(messages);
    const ended = new Set<string>();
    let held: LaneDelta[] | undefined = retained > 0 ? [] : undefined;
    const release = () => {
      for (const delta of held ?? []) onDelta(delta, ended.has(laneStepKey(delta.event)));
      held = undefined;
    };
    for await (const m of messages) {
      const message = m.json<LaneMessage>();
      if ('end' in message) ended.add(message.end);
      else if (held) held.push({ seq: m.seq, event: message.delta });
      else onDelta({ seq: m.seq, event: message.delta }, false);
      if (held && m.info.pending === 0) release();
    }
  }
}
