// The bridge's own entry point (bridge/main.ts, as a deployment runs it) stops on SIGINT/SIGTERM while a client
// follows a live run: the client's stream ends cleanly with a last comment naming where to resume, and the process
// exits within seconds. Before, Fastify waited for the SSE response, which never ends by itself.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { askingAgent, keyOf } from '../helpers/approvals';
import { openRawSse } from '../helpers/raw-sse';
import { testEnv } from '../helpers/test-env';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

describe('bridge/main.ts and a signal with a client following a live run', () => {
  const bed = useTestBed({ tools: testTools });

  it.each(['SIGINT', 'SIGTERM'] as const)('exits within seconds of %s and ends the stream cleanly', async (signal) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: testEnv('temporalAddress'),
      AGIO_TASK_QUEUE: bed.worker.taskQueue,
      AGIO_TOKENS: 'bridge-token:default',
      PORT: '0',
    };
    for (const key of ['MONGODB_URI', 'AGIO_NATS_URL', 'AGIO_AGENTS', 'TEMPORAL_NAMESPACE']) delete env[key];
    const child = spawn(process.execPath, ['--import', 'tsx', 'bridge/main.ts'], {
      cwd: path.resolve(__dirname, '../..'),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = (await waitFor('the bridge to listen', () => /agio bridge: (http:\/\/\S+)/.exec(output), 60_000))[1];
      const agent = askingAgent(`signal-asker-${signal.toLowerCase()}`);
      bed.server.scriptFor(keyOf(agent), toolCalls([toolCall('record', { label: 'never' }, { id: 'call_rec' })]));
      const run = await bed.agio.start(agent, 'record something');
      const stream = await openRawSse(`${url}/runs/${run.runId}/events`, 'bridge-token');
      await stream.waitForText('event: TOOL_AUTH_REQUIRED');

      const signalled = Date.now();
      child.kill(signal);
      const timedOut = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 15_000).unref());
      expect(await Promise.race([exited, timedOut])).not.toBe('timeout');
      expect(Date.now() - signalled).toBeLessThan(10_000);
      const body = await stream.ended;
      expect(body.trimEnd().split('\n\n').at(-1)).toMatch(
        /^: bridge shutting down; reconnect with Last-Event-ID: \d+$/,
      );
      await bed.client.workflow.getHandle(run.runId).terminate('test over');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    }
  });
});
