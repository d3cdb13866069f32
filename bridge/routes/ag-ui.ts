// AG-UI (protocols/ag-ui/): every agent the bridge holds is an AG-UI agent at POST /ag-ui/agents/:name, which takes a
// RunAgentInput and answers an AG-UI event stream (SSE, or protobuf when the client asks for it). Threads are Agio
// sessions; approvals end the AG-UI run with an interrupt whose answer (a RunAgentInput with `resume`) continues the
// same durable run; the same RunAgentInput again, or Last-Event-ID, resumes a dropped stream.
import { EventEncoder } from '@ag-ui/encoder';

import type { Event as AgUiEvent } from '@ag-ui/core';
import { EventType } from '@ag-ui/core';
import { z } from 'zod';
import { IdempotencyConflictError, InputTooLargeError } from '../../client/agio-client';
import { parseCursor } from '../../client/tree-cursor';
import { AgUiRequestError, prepareRun } from '../../protocols/ag-ui/run-request';
import { AgUiRunInput } from '../../protocols/ag-ui/run-input';
import { streamAgUiRun, type AgUiFrame } from '../../protocols/ag-ui/run-stream';
import { hasScope } from '../auth';
import { apiRoute, defineRoute } from '../api-route';
import { ApiErrorBody } from '../api-schemas';
import { HttpError } from '../errors';
import { sseComment } from '../sse';
import {
  DEFAULT_MAX_RUNNING_RUNS_PER_TENANT,
  DEFAULT_MAX_STREAMS_PER_TENANT,
  RunningRunsQuota,
  TenantStreams,
} from '../quotas';
import type { Routes } from './context';

/** AG-UI's protobuf media type (what `Accept` must name for a protobuf stream). */
const AGUI_PROTO_MEDIA_TYPE = 'application/vnd.ag-ui.event+proto';

/** POST /ag-ui/agents/:name. */
export const PostAgUiRun = defineRoute({
  method: 'POST',
  path: '/ag-ui/agents/:name',
  summary: 'Run an agent as an AG-UI 1.0 agent: RunAgentInput in, AG-UI events out',
  description:
    "The thread (`threadId`) is the agent's Agio session; the input's last user messages are the new turn. Approvals " +
    'end the AG-UI run with an `interrupt` outcome (one per waiting call, with `expiresAt`); a RunAgentInput whose ' +
    '`resume` answers them (`payload: { approved, message?, remember? }`, needs the "decide" scope) continues the same ' +
    'durable run. The same RunAgentInput again replays the run from its start; `Last-Event-ID` resumes after a frame. ' +
    'Frontend tools (`tools`) are offered to the model; a run waiting only on their calls ends the AG-UI run with ' +
    '`pendingToolCallIds`, and a RunAgentInput ending with their `tool` messages continues it. A paused run ends the ' +
    'AG-UI run with an `agio:run_paused` interrupt (resolving it resumes the run: "control" scope); a new message on ' +
    'a thread with open interrupts is RUN_ERROR `pending_interrupts`.',
  tags: ['ag-ui'],
  auth: 'start',
  params: z.object({ name: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'malformed agent name') }),
  body: AgUiRunInput,
  headers: {
    'last-event-id': { description: 'Resume after this frame of the same AG-UI run (its `id:`)' },
    accept: { description: 'text/event-stream (default) or application/vnd.ag-ui.event+proto' },
  },
  responses: {
    200: { description: 'The AG-UI event stream', contentType: 'text/event-stream' },
    400: 'invalid_request (a malformed RunAgentInput, or no user message to answer) or invalid_offset',
    403: 'forbidden: resume entries need the "decide" scope',
    404: 'agent_not_found',
    409: 'idempotency_conflict: this thread and run id started a different run',
    413: 'input_too_large',
    429: {
      description: "quota_exceeded: the tenant's running runs (a new run) or open streams are at the bridge's cap",
      schema: ApiErrorBody,
      headers: { 'retry-after': 'seconds' },
    },
  },
  options: { bodyLimit: 8 * 1024 * 1024 },
});

export const agUiRoutes: Routes = (app, ctx) => {
  const streams = new TenantStreams(ctx.opts.maxStreamsPerTenant ?? DEFAULT_MAX_STREAMS_PER_TENANT);
  const heartbeatMs = ctx.opts.heartbeatMs ?? 15_000;
  // New runs count against the tenant's running runs as POST /runs' do (a visibility that cannot count admits them).
  const running = new RunningRunsQuota(
    (tenant) => ctx.agio.count({ tenant, status: 'running' }).catch(() => 0),
    ctx.opts.maxRunningRunsPerTenant ?? DEFAULT_MAX_RUNNING_RUNS_PER_TENANT,
  );

  apiRoute(app, ctx.tokens, PostAgUiRun, async ({ req, reply, caller, params: { name }, body }) => {
    if (!ctx.agio.agents.find(name)) throw new HttpError(404, 'agent_not_found', `no agent "${name}" on this bridge`);
    const header = req.headers['last-event-id'];
    const lastEventId = typeof header === 'string' && header.length ? parseCursor(header) : undefined;
    if (header !== undefined && !lastEventId)
      throw new HttpError(400, 'invalid_offset', 'Last-Event-ID: the id of a frame of this stream');
    const agUiCaller = {
      tenant: caller.tenant,
      identity: caller.identity,
      roles: caller.roles ? [...caller.roles] : undefined,
      mayDecide: hasScope(caller, 'decide'),
      mayControl: hasScope(caller, 'control'),
    };
    const admit = () => running.admit(caller.tenant);
    const prepared = await prepareRun(ctx.agio, agUiCaller, name, body, admit).catch((err: Error) => {
      if (err instanceof AgUiRequestError) throw new HttpError(err.status, err.code, err.message);
      if (err instanceof InputTooLargeError) throw new HttpError(413, 'input_too_large', err.message);
      if (err instanceof IdempotencyConflictError)
        throw new HttpError(
          409,
          'idempotency_conflict',
          `thread "${body.threadId}" run "${body.runId}" started another run`,
        );
      throw err;
    });
    const release = streams.acquire(caller.tenant);
    // Protobuf only when the client names it: the encoder alone takes `*/*` (curl's default) as asking for it.
    const accept = req.headers.accept ?? '';
    const encoder = new EventEncoder(accept.includes(AGUI_PROTO_MEDIA_TYPE) ? { accept } : {});
    const sse = encoder.getContentType().startsWith('text/event-stream');
    const set = reply.getHeaders() as Record<string, string | string[] | number>;
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      ...set,
      'content-type': encoder.getContentType(),
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const write = ({ events, id }: AgUiFrame) => {
      if (!sse) return events.forEach((e) => res.write(encoder.encodeBinary(e)));
      // The id goes on the frame's last event: a client's Last-Event-ID moves only once it has the whole frame.
      res.write(
        events.map((e, i) => (i === events.length - 1 && id ? `id: ${id}\n` : '') + encoder.encodeSSE(e)).join(''),
      );
    };
    const stop = new AbortController();
    const heartbeat = sse ? setInterval(() => res.write(': ping\n\n'), heartbeatMs) : undefined;
    const forget = ctx.openStreams.add(() => {
      if (sse) res.write(sseComment('bridge shutting down: post the same RunAgentInput again to resume'));
      stop.abort();
      res.end();
    });
    res.on('close', () => stop.abort());
    try {
      if ('refusal' in prepared) {
        const { code, message } = prepared.refusal;
        write({ events: [{ type: EventType.RUN_ERROR, message, code } as AgUiEvent] });
        return;
      }
      for await (const frame of streamAgUiRun({
        ...prepared,
        threadId: body.threadId,
        runId: body.runId,
        lastEventId,
        clientTools: (body.tools ?? []).map((t) => t.name),
        lane: ctx.opts.liveLane,
        signal: stop.signal,
      })) {
        if (stop.signal.aborted) break;
        write(frame);
      }
    } finally {
      clearInterval(heartbeat);
      forget();
      release();
      stop.abort();
      if (!res.writableEnded) res.end();
    }
  });
};
