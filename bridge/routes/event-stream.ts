// GET /runs/:id/events: an SSE response fed by the StreamHub, resumable with Last-Event-ID or ?after= (an id: the
// tree cursor, then the lane position). A nested run's stream is its subtree: read from its own log (and its
// children's) when it keeps one, else its part of the root's log (older trees), with the root's offsets.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isTerminalType, type WireEvent } from '../../common';
import { HttpError } from '../errors';
import type { LaneDelta, LiveLane } from '../../live/lane';
import { goingAwayComment, type OpenStreams } from '../open-streams';
import { resumePosition, sseComment, sseFrame } from '../sse';
import { encodeCursor } from '../../client/tree-cursor';
import type { StreamHub } from '../stream-hub';

/** How long live deltas wait for a new stream's first durable event, so they do not come before the run's start. */
const CATCH_UP_MS = 250;

/** Whether an event belongs to run `runId` or to a run nested in it. */
const inRun = (event: Pick<WireEvent, 'runId'>, runId: string) =>
  event.runId === runId || event.runId.startsWith(`${runId}/`);

/**
 * Takes over the response and streams the run's events until its terminal event (or its root's) or the client leaves:
 * the durable events of the root's log, and (with a live lane) the deltas of steps in flight merged in as they come.
 */
export function streamRunEvents(
  req: FastifyRequest,
  reply: FastifyReply,
  hub: StreamHub,
  run: { tenant: string; rootRunId: string; runId: string; ownLog?: boolean },
  heartbeatMs: number,
  lane?: LiveLane,
  open?: OpenStreams,
): void {
  const { tenant, rootRunId, runId } = run;
  const nested = runId !== rootRunId;
  // The tree the hub reads: the run's own (a root, or a nested run that keeps its log), else its root's, filtered.
  const treeRunId = run.ownLog ? runId : rootRunId;
  const filtered = nested && !run.ownLog;
  const position = resumePosition(req.headers['last-event-id'], (req.query as Record<string, unknown>)?.after);
  if (position === undefined)
    throw new HttpError(
      400,
      'invalid_offset',
      'Last-Event-ID / after must be an event id: an offset ≥ -1 or a stream position (17, 17~5:3), optionally with a lane position (17.1764…)',
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
  let durableId = encodeCursor(position.cursor);
  res.write(sseComment(`run ${runId}, after ${durableId}`));
  let done = false;
  // What this client has: its offset in the stream's own run's log and its position in the tree, the last lane
  // position (once it has had a delta), the steps whose STEP_COMPLETED it has (their late deltas are dropped) and each
  // step's newest attempt (older ones are dropped).
  let offset = position.after;
  let laneSeq = position.lane;
  const completed = new Set<string>();
  const attempts = new Map<string, number>();
  const idOf = () => (laneSeq === undefined ? durableId : `${durableId}.${laneSeq}`);
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
    res.write(sseFrame({ ...event, offset, seq }, idOf()));
  };
  function flushWaiting(): void {
    const held = waiting;
    waiting = undefined;
    for (const [delta, ended] of held ?? []) writeDelta(delta, ended);
  }
  subscription.unsubscribe = hub.subscribe(tenant, treeRunId, position.cursor, {
    onEvent: (event, id) => {
      if (done || (filtered && !inRun(event, runId))) return;
      if (event.type === 'STEP_COMPLETED' && event.stepId) completed.add(event.stepId);
      if (event.type === 'STEP_RETRY' && event.stepId)
        attempts.set(event.stepId, Math.max(attempts.get(event.stepId) ?? 0, event.attempt ?? 1));
      // A delta is placed in the stream by the offset of the stream's own run's log (the id's first number): with
      // nested logs, the durable event before it may be another log's, whose offset says nothing of where it is.
      offset = Number(id.split('~')[0]);
      durableId = id;
      res.write(sseFrame(event, idOf()));
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
      if (!done) res.write(goingAwayComment(idOf()));
      finish();
    });
}
