// GET /runs/:id/events: an SSE response fed by the StreamHub, resumable with Last-Event-ID or ?after=. A nested
// run's stream is its part of the root's log (its events and its own nested runs'), with the root's offsets.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isTerminalType, type AgioEvent } from '../common';
import { HttpError } from './errors';
import type { LaneDelta, LiveLane } from '../live/lane';
import { goingAwayComment, type OpenStreams } from './open-streams';
import { resumePosition, sseComment, sseFrame } from './sse';
import type { StreamHub } from './stream-hub';

/** How long live deltas wait for a new stream's first durable event, so they do not come before the run's start. */
const CATCH_UP_MS = 250;

/** Whether an event belongs to run `runId` or to a run nested in it. */
const inRun = (event: Pick<AgioEvent, 'runId'>, runId: string) =>
  event.runId === runId || event.runId.startsWith(`${runId}/`);

/**
 * Takes over the response and streams the run's events until its terminal event (or its root's) or the client leaves:
 * the durable events of the root's log, and (with a live lane) the deltas of steps in flight merged in as they come.
 */
export function streamRunEvents(
  req: FastifyRequest,
  reply: FastifyReply,
  hub: StreamHub,
  run: { tenant: string; rootRunId: string; runId: string },
  heartbeatMs: number,
  lane?: LiveLane,
  open?: OpenStreams,
): void {
  const { tenant, rootRunId, runId } = run;
  const nested = runId !== rootRunId;
  const position = resumePosition(req.headers['last-event-id'], (req.query as Record<string, unknown>)?.after);
  if (position === undefined)
    throw new HttpError(
      400,
      'invalid_offset',
      'Last-Event-ID / after must be an event id: an offset ≥ -1, optionally with a lane position (17 or 17.1764…)',
    );
  // Headers hooks set before the take-over (CORS) go out with the stream's own.
  const set = reply.getHeaders() as Record<string, string | string[] | number>;
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    ...set,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(sseComment(`run ${runId}, after ${position.after}`));
  let done = false;
  // What this client has: the last durable offset, the last lane position (once it has had a delta), the steps
  // whose STEP_COMPLETED it has (their late deltas are dropped) and each step's newest attempt (older ones are dropped).
  let offset = position.after;
  let laneSeq = position.lane;
  const completed = new Set<string>();
  const attempts = new Map<string, number>();
  const idOf = (durable: number) => (laneSeq === undefined ? String(durable) : `${durable}.${laneSeq}`);
  // subscribe() may end the stream synchronously (a finished run), before it has returned its unsubscribe.
  const subscription = { unsubscribe: () => undefined as void, leaveLane: () => undefined as void };
  const heartbeat = setInterval(() => res.write(sseComment('ping')), heartbeatMs);
  let waiting: [LaneDelta, boolean][] | undefined = lane ? [] : undefined;
  const catchUp = setTimeout(() => flushWaiting(), CATCH_UP_MS);
  let forget: () => void = () => undefined;
  const finish = () => {
    if (done) return;
    done = true;
    forget();
    clearInterval(heartbeat);
    clearTimeout(catchUp);
    subscription.unsubscribe();
    subscription.leaveLane();
    res.end();
  };
  const writeDelta = ({ seq, event }: LaneDelta, stepEnded: boolean) => {
    if (done || stepEnded || (nested && !inRun(event, runId))) return;
    const step = event.stepId ?? '';
    const attempt = event.attempt ?? 1;
    if (completed.has(step) || (attempts.get(step) ?? 0) > attempt) return;
    attempts.set(step, attempt);
    laneSeq = seq;
    res.write(sseFrame({ ...event, offset, seq }, idOf(offset)));
  };
  function flushWaiting(): void {
    const held = waiting;
    waiting = undefined;
    for (const [delta, ended] of held ?? []) writeDelta(delta, ended);
  }
  subscription.unsubscribe = hub.subscribe(tenant, rootRunId, position.after, {
    onEvent: (event) => {
      if (done || (nested && !inRun(event, runId))) return;
      if (event.type === 'STEP_COMPLETED' && event.stepId) completed.add(event.stepId);
      if (event.type === 'STEP_RETRY' && event.stepId)
        attempts.set(event.stepId, Math.max(attempts.get(event.stepId) ?? 0, event.attempt ?? 1));
      offset = event.offset;
      res.write(sseFrame(event, idOf(event.offset)));
      if (waiting) flushWaiting();
      if (nested && event.runId === runId && isTerminalType(event.type)) finish();
    },
    onEnd: (error) => {
      if (error)
        res.write(
          `event: error\ndata: ${JSON.stringify({ error: { code: 'stream_failed', message: error.message } })}\n\n`,
        );
      finish();
    },
  });
  if (lane && !done) {
    subscription.leaveLane = lane.subscribe(rootRunId, position.lane ?? -1, (delta, ended) => {
      if (waiting) waiting.push([delta, ended]);
      else writeDelta(delta, ended);
    });
  }
  if (done) {
    subscription.unsubscribe();
    subscription.leaveLane();
  }
  req.raw.on('close', finish);
  // A closing bridge ends the stream itself (with a last comment) rather than waiting for it to end.
  if (!done && open)
    forget = open.add(() => {
      if (!done) res.write(goingAwayComment(idOf(offset)));
      finish();
    });
}
