// GET /runs/:id/events: an SSE response fed by the StreamHub, resumable with Last-Event-ID or ?after=.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from './errors';
import { resumeOffset, sseComment, sseFrame } from './sse';
import type { StreamHub } from './stream-hub';

/** Takes over the response and streams the run's events until the root's terminal event or the client leaves. */
export function streamRunEvents(req: FastifyRequest, reply: FastifyReply, hub: StreamHub, runId: string, heartbeatMs: number): void {
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
  subscription.unsubscribe = hub.subscribe(runId, after, {
    onEvent: (event) => res.write(sseFrame(event)),
    onEnd: (error) => {
      if (error) res.write(`event: error\ndata: ${JSON.stringify({ error: { code: 'stream_failed', message: error.message } })}\n\n`);
      finish();
    },
  });
  if (done) subscription.unsubscribe();
  req.raw.on('close', finish);
}
