// The attack of issue 30 through `agio serve` itself (worker and bridge in one process): a prompt-injected model runs
// bash to read serve's secrets from /proc, call the bridge on its own loopback port, and list the data directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ScriptedModelServer, text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { sentToolResult } from '../helpers/agent-runs';
import { DEV_TOKEN, startServe, type ServeProcess } from '../helpers/serve-process';

jest.setTimeout(240_000);

describe('bash through agio serve', () => {
  const apiKey = `sk-serve-${randomUUID()}`;
  let dataDir: string;
  let serve: ServeProcess;
  let model: ScriptedModelServer;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agio-serve-sandbox-'));
    const agentsFile = path.join(dataDir, 'agents.yaml');
    fs.writeFileSync(agentsFile, 'agents:\n  - name: shell\n    tools: [bash]\n    sequentialToolCalls: true\n');
    model = await ScriptedModelServer.start();
    serve = await startServe(dataDir, 0, {
      args: ['--agents', agentsFile],
      env: { OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: model.baseURL, AGIO_MODEL: 'scripted' },
    });
  });
  afterAll(async () => {
    if (serve && serve.child.exitCode === null) serve.child.kill('SIGKILL');
    await model?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("reads neither serve's environment nor its data directory, and cannot reach its bridge", async () => {
    const port = new URL(serve.url).port;
    model.script(
      toolCalls([
        toolCall('bash', { command: 'cat /proc/*/environ | tr "\\0" "\\n"; env' }, { id: 'environ' }),
        toolCall(
          'bash',
          {
            command: `(exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3) 2>&1`,
          },
          { id: 'bridge' },
        ),
        toolCall('bash', { command: `ls -a .. ../.. ../../.. ${dataDir} 2>&1` }, { id: 'dataDir' }),
      ]),
      text('done'),
    );
    // fetch, not curl: the scripted model answers from this process, which a synchronous curl would block.
    const headers = { authorization: `Bearer ${DEV_TOKEN}`, 'content-type': 'application/json' };
    const started = (await (
      await fetch(`${serve.url}/runs`, { method: 'POST', headers, body: '{"agent":"shell","input":"x"}' })
    ).json()) as { runId: string };
    // The stream ends with the run.
    const stream = await (await fetch(`${serve.url}/runs/${started.runId}/events`, { headers })).text();
    expect(stream).toContain('RUN_COMPLETED');
    const results = model.requests[1];
    for (const id of ['environ', 'bridge', 'dataDir']) {
      const out = sentToolResult(results, id);
      expect(out).not.toContain(apiKey);
      expect(out).not.toContain(DEV_TOKEN);
      expect(out).not.toContain('temporal.db');
      expect(out).not.toContain('agents.yaml');
    }
    expect(sentToolResult(results, 'bridge')).not.toMatch(/HTTP\/1\.[01] \d{3}/);
    expect(sentToolResult(results, 'bridge')).toMatch(/Connection refused/);
    expect(sentToolResult(results, 'dataDir')).toMatch(/No such file or directory/);
  });
});
