// A pending approval outlives its worker (DESIGN.md section 7: the wait is durable): the worker process is SIGKILLed
// while a call waits for a decision, a new worker takes over, and an approval sent after the restart still lets
// the tool run once and the run complete.
import type { Client, Connection } from '@temporalio/client';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgioClient } from '../../client/agio-client';
import type { RunOutput } from '../../common';
import { ScriptedModelServer, text, toolCall, toolCalls } from '../../worker/dev-server/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { activities, sentToolResult } from '../helpers/agent-runs';
import { askingAgent, authTrail, keyOf, recordsOf, waitForAsk } from '../helpers/approvals';
import { expectWholeStream, readStream, requestsOf } from '../helpers/nested-runs';
import { startTestWorker, testClient, uniqueId, type TestWorker } from '../helpers/temporal';
import { testEnv } from '../helpers/test-env';
import { startWorkerProcess, stopWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

describe('a pending approval across a worker crash', () => {
  let client: Client;
  let connection: Connection;
  let server: ScriptedModelServer;
  let first: WorkerProcess | undefined;
  let second: TestWorker | undefined;
  let workspaceRoot: string;

  beforeAll(async () => {
    ({ client, connection } = await testClient());
    server = await ScriptedModelServer.start();
  });
  afterAll(async () => {
    await stopWorkerProcess(first);
    await second?.stop();
    await server?.close();
    await connection?.close();
    if (workspaceRoot) await fs.rm(workspaceRoot, { recursive: true, force: true });
  });
  afterEach(() => {
    expect(server.unexpected).toEqual([]);
    expect(server.pending()).toBe(0);
  });

  it('still takes an approval sent after the worker was SIGKILLed and replaced, runs the tool once and completes', async () => {
    const taskQueue = uniqueId('approval-kill');
    const model = { baseURL: server.baseURL, apiKey: 'test', defaultModel: 'scripted' };
    workspaceRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'agio-ws-approval-kill-'));
    first = await startWorkerProcess({ address: testEnv('temporalAddress'), taskQueue, model, workspaceRoot, workflowBundle: testEnv('workflowBundle'), tools: ['record'], stickyQueueScheduleToStartTimeoutMs: 1000 });
    const agent = askingAgent('crash-asker');
    server.scriptFor(keyOf(agent), toolCalls([toolCall('record', { label: 'after the crash' }, { id: 'call_k' })]), text('survived the crash'));
    const agio = new AgioClient(client, { taskQueue });
    const run = await agio.start(agent, 'record something');
    await waitForAsk(client, run.runId, 'call_k');

    first.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(activities(await run.workflow.fetchHistory(), 'runTool')).toEqual([]);
    second = await startTestWorker({ model, tools: testTools, taskQueue, workspaceRoot });
    const approvedAt = Date.now();
    expect(await run.approve('call_k', { by: 'after-restart' })).toEqual({ toolCallId: 'call_k', decision: 'approve' });
    const output: RunOutput = await run.result();

    expect(output.response).toBe('survived the crash');
    // The tool ran once, in the new worker (this process), after the approval.
    const records = recordsOf(run.runId);
    expect(records.map((r) => r.label)).toEqual(['after the crash']);
    expect(records[0].startedAt).toBeGreaterThanOrEqual(approvedAt);
    expect(activities(await run.workflow.fetchHistory(), 'runTool').map((a) => [a.completed, a.completedAttempt])).toEqual([[true, 1]]);
    expect(requestsOf(server, keyOf(agent))).toHaveLength(2);
    expect(sentToolResult(requestsOf(server, keyOf(agent))[1], 'call_k')).toBe('recorded after the crash');
    const events = await readStream(client, run.runId);
    expectWholeStream(events, run.runId);
    expect(authTrail(events)).toEqual([['TOOL_AUTH_REQUIRED', 'call_k'], ['TOOL_AUTH_GRANTED', 'call_k']]);
    expect(events.find((e) => e.type === 'TOOL_AUTH_GRANTED')?.data).toMatchObject({ by: 'after-restart' });
  });
});
