// GET /runs/:id/events: an SSE response fed by the StreamHub, resumable with Last-Event-ID or ?after=. A nested
// run's stream is its part of the root's log (its events and its own nested runs'), with the root's offsets.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TERMINAL_EVENT_TYPES, type AgioEvent } from '../common';
import { HttpError } from './errors';
import { resumeOffset, sseComment, sseFrame } from './sse';
import type { StreamHub } from './stream-hub';

/** Whether an event belongs to run `runId` or to a run nested in it. */
const inRun = (event: AgioEvent, runId: string) => event.runId === runId || event.runId.startsWith(`${runId}/`);

/** Takes over the response and streams the run's events until its terminal event (or its root's) or the client leaves. */
export function streamRunEvents(req: FastifyRequest, reply: FastifyReply, hub: StreamHub, run: { tenant: string; rootRunId: string; runId: string }, heartbeatMs: number): void {
  const { tenant, rootRunId, runId } = run;
  const nested = runId !== rootRunId;
  const after = resumeOffset(req.headers['last-event-id'], (req.query as Record<string, unknown>)?.after);
  if (after === undefined) throw new HttpError(400, 'invalid_offset', 'Last-Event-ID / after must be an integer ≥ -1');
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(sseComment(`run ${runId}, after ${after}`));
  let done = false;
  // subscribe() may end the stream synchronously (a finished run), before it has returned its unsubscribe.
  const subscription = { unsubscribe: () => undefined as void };
  const heartbeat = setInterval(() => res.write(sseComment('ping')), heartbeatMs);
  const finish = () => {
    if (done) return;
    done = true;
    clearInterval(heartbeat);
    subscription.unsubscribe();
    res.end();
  };
  subscription.unsubscribe = hub.subscribe(tenant, rootRunId, after, {
    onEvent: (event) => {
      if (done || (nested && !inRun(event, runId))) return;
      res.write(sseFrame(event));
      if (nested && event.runId === runId && TERMINAL_EVENT_TYPES.includes(event.type)) finish();
    },
    onEnd: (error) => {
      if (error) res.write(`event: error\ndata: ${JSON.stringify({ error: { code: 'stream_failed', message: error.message } })}\n\n`);
      finish();
    },
  });
  if (done) subscription.unsubscribe();
  req.raw.on('close', finish);
}
