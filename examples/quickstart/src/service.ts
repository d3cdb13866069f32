// The backend: a small HTTP service on agio/client alone (no agents, no tools, no worker). It starts the `support`
// agent by name and drives its runs with every RunHandle method:
//   POST /questions {"question"}             start, wait for the answer: {"runId", "answer"}
//   POST /questions?wait=false               start only: {"runId"}
//   GET  /questions/:id                      the run's state (status, steps, pending approvals…)
//   GET  /questions/:id/answer               waits for the run's RUN_COMPLETED event: {"answer"}
//   GET  /questions/:id/events               its events as NDJSON, live until the run ends
//   POST /questions/:id/pause | resume | cancel
//   POST /questions/:id/approvals/:callId {"approve": true | false, "message"?}
// Runs are durable: they survive a restart of this service or of the worker.
import http from 'node:http';
import { RunClosedError, RunNotFoundError, type AgioClient, type RunHandle } from 'agio/client';

type Reply = (status: number, body: unknown) => void;

/** The service's HTTP server (not yet listening). */
export function createService(agio: AgioClient): http.Server {
  return http.createServer((req, res) => {
    const reply: Reply = (status, body) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      route(agio, req, res, JSON.parse(body || '{}') as Record<string, unknown>, reply).catch((err: Error) => {
        if (err instanceof RunNotFoundError) reply(404, { error: err.message });
        else if (err instanceof RunClosedError) reply(409, { error: err.message });
        else reply(500, { error: err.message });
      });
    });
  });
}

async function route(
  agio: AgioClient,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: Record<string, unknown>,
  reply: Reply,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://service');
  const [, resource, runId, action, callId] = url.pathname.split('/');
  if (resource !== 'questions') return reply(404, { error: 'not found' });
  if (req.method === 'POST' && !runId) {
    if (typeof body.question !== 'string') return reply(400, { error: 'question is required' });
    const run = await agio.start('support', body.question);
    if (url.searchParams.get('wait') === 'false') return reply(202, { runId: run.runId });
    return reply(200, { runId: run.runId, answer: (await run.result()).response });
  }
  const run: RunHandle = agio.getHandle(runId);
  if (req.method === 'GET' && !action) return reply(200, await run.state());
  if (req.method === 'GET' && action === 'answer') {
    return reply(200, { answer: (await run.waitFor('RUN_COMPLETED')).data.response });
  }
  if (req.method === 'GET' && action === 'events') return streamEvents(run, res);
  if (req.method !== 'POST') return reply(404, { error: 'not found' });
  if (action === 'pause') return reply(200, await run.pause());
  if (action === 'resume') return reply(200, await run.resume());
  if (action === 'cancel') return reply(202, await run.cancel());
  if (action === 'approvals' && callId) {
    const decided = body.approve
      ? await run.approve(callId)
      : await run.deny(callId, { message: typeof body.message === 'string' ? body.message : undefined });
    return reply(200, decided);
  }
  reply(404, { error: 'not found' });
}

/** One JSON line per event, from the first, following the run until it ends. */
async function streamEvents(run: RunHandle, res: http.ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  for await (const event of run.stream()) res.write(`${JSON.stringify(event)}\n`);
  res.end();
}
