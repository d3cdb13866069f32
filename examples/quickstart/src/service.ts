// The backend: a small HTTP service that answers support questions by starting the `support` agent by name.
// It needs agio/client only (no agents, no tools, no worker): POST /questions {"question": "..."} answers
// {"runId", "answer"} once the run has completed; the run itself is durable and survives a restart of either side.
import http from 'node:http';
import type { AgioClient } from 'agio/client';

/** The service's HTTP server (not yet listening). */
export function createService(agio: AgioClient): http.Server {
  return http.createServer((req, res) => {
    const reply = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method !== 'POST' || req.url !== '/questions') return reply(404, { error: 'not found' });
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const { question } = JSON.parse(body || '{}') as { question?: string };
      if (!question) return reply(400, { error: 'question is required' });
      agio
        .start('support', question)
        .then(async (run) => reply(200, { runId: run.runId, answer: (await run.result()).response }))
        .catch((err: Error) => reply(500, { error: err.message }));
    });
  });
}
