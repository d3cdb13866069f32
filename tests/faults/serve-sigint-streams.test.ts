// Ctrl-C stops `agio serve` while a client follows a live run: the bridge ends every open SSE response itself (a
// last comment naming the id to resume after, then a clean end of the body) before it waits for open requests.
// Before, the streams were ended in Fastify's onClose hook, which runs only after that wait: serve never exited.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openRawSse } from '../helpers/raw-sse';
import { startServe, type ServeProcess } from '../helpers/serve-process';

/** An agent whose one tool (the demo model calls `ls`) waits for a person: its run stays open, its stream live. */
const AGENTS = `agents:
  - name: asker
    instructions: List the workspace.
    tools: [ls]
    permissions:
      - { tool: ls, action: ask }
`;

describe('agio serve and Ctrl-C with a client following a live run', () => {
  jest.setTimeout(240_000);
  let dataDir: string;
  let serve: ServeProcess | undefined;

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agio-serve-sigint-'));
    fs.writeFileSync(path.join(dataDir, 'agents.yaml'), AGENTS);
  });
  afterAll(async () => {
    if (serve && serve.child.exitCode === null) {
      serve.child.kill('SIGKILL');
      await serve.exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits within seconds of SIGINT and ends the open stream cleanly with a reconnect hint', async () => {
    serve = await startServe(path.join(dataDir, 'data'), 0, { args: ['--agents', path.join(dataDir, 'agents.yaml')] });
    const started = await fetch(`${serve.url}/runs`, {
      method: 'POST',
      headers: { authorization: 'Bearer dev-token', 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'asker', input: 'what is here?' }),
    });
    const { runId } = (await started.json()) as { runId: string };
    const stream = await openRawSse(`${serve.url}/runs/${runId}/events`, 'dev-token');
    expect(stream.status).toBe(200);
    await stream.waitForText('event: TOOL_AUTH_REQUIRED', 60_000);

    const signalled = Date.now();
    serve.child.kill('SIGINT');
    const timedOut = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 20_000).unref());
    const code = await Promise.race([serve.exited, timedOut]);
    const took = Date.now() - signalled;
    expect(code).toBe(0);
    expect(took).toBeLessThan(10_000);
    // The body ended cleanly (a cut connection rejects), and its last frame tells the client where to resume.
    const body = await stream.ended;
    const lastId = [...body.matchAll(/^id: (\S+)$/gm)].at(-1)?.[1];
    expect(body.trimEnd().split('\n\n').at(-1)).toBe(`: bridge shutting down; reconnect with Last-Event-ID: ${lastId}`);
    expect(serve.output()).toContain('agio: stopped');
  });
});
