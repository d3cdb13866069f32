// Workers hold no run state of their own: a run's workspace is kept in the stores, so a file written by a tool on one
// worker is there for the run's next tools on another worker after the first is SIGKILLed; and a run's workspace has
// a quota whose error the model reads, with the workspace left as it was.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { defineAgent, runWorkspace } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { runToEnd, sentToolResult } from '../helpers/agent-runs';
import { openMongoStores, type TestMongoStores } from '../helpers/mongo-stores';
import { startTestWorker, uniqueId, type TestWorker } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';
import {
  killWorkerProcess,
  startTestWorkerProcess,
  stopWorkerProcess,
  type WorkerProcess,
} from '../helpers/worker-process';
import type { RunOutput } from '../../common';

describe('workspaces across workers', () => {
  const bed = useTestBed({ worker: false });
  let mongo: TestMongoStores;
  let first: WorkerProcess | undefined;
  let second: TestWorker | undefined;

  beforeAll(async () => {
    mongo = await openMongoStores();
  });
  afterAll(() => mongo?.close());
  afterEach(async () => {
    await stopWorkerProcess(first);
    await second?.stop();
    first = second = undefined;
  });

  it('reads on worker B, with file_read and bash cat, a file written on worker A after A was SIGKILLed', async () => {
    const taskQueue = uniqueId('ws-failover');
    first = await startTestWorkerProcess({ taskQueue, model: bed.model(), mongoUri: mongo.uri });
    const onA = first;
    bed.server.script(
      toolCalls([
        toolCall('file_write', { path: 'notes/hello.txt', content: 'written on worker A\n' }, { id: 'call_write' }),
      ]),
      // Worker A asks for the next turn: it dies instead of getting an answer, and worker B takes the run over.
      async () => {
        await killWorkerProcess(onA);
        second = await startTestWorker({
          model: bed.model(),
          taskQueue,
          stores: mongo.stores,
          workerOptions: { stickyQueueScheduleToStartTimeout: 1000 },
        });
        return text('never delivered: worker A is gone');
      },
      toolCalls([
        toolCall('file_read', { path: 'notes/hello.txt' }, { id: 'call_read' }),
        toolCall('bash', { command: 'cat notes/hello.txt && ls -R' }, { id: 'call_cat' }),
      ]),
      text('read it on B'),
    );
    const agent = defineAgent({ name: 'mover', tools: ['file_write', 'file_read', 'bash'] });

    const { output, handle } = await runToEnd(bed.client, taskQueue, {
      agent,
      input: 'write, then read',
      context: { limits: { modelHeartbeatTimeoutMs: 2000 } },
    });

    expect(output.response).toBe('read it on B');
    const last = bed.server.requests.at(-1)!;
    expect(sentToolResult(last, 'call_read')).toBe('     1\twritten on worker A');
    expect(sentToolResult(last, 'call_cat')).toMatch(/^written on worker A\n[\s\S]*hello\.txt[\s\S]*exit code: 0$/);
    // B's own directory now holds the file, fetched from the store (A's directory was never B's).
    const onB = path.join(second!.workspaceRoot, runWorkspace(handle.workflowId), 'notes/hello.txt');
    expect(await fs.readFile(onB, 'utf8')).toBe('written on worker A\n');
    expect(first.ownWorkspace).not.toBe(second!.workspaceRoot);
    const manifest = await mongo.stores.workspaces.manifest('default', runWorkspace(handle.workflowId));
    expect(manifest.files.map((f) => f.path)).toEqual(['notes/hello.txt']);
  });
});

describe('workspace quota', () => {
  const bed = useTestBed({ workerOptions: { workspaceQuota: { maxBytes: 1000, maxFiles: 3 } } });

  it('refuses a write past the quota with an error the model reads, and keeps the workspace as it was', async () => {
    bed.server.script(
      toolCalls([toolCall('file_write', { path: 'a.txt', content: 'a'.repeat(600) }, { id: 'call_a' })]),
      toolCalls([toolCall('file_write', { path: 'b.txt', content: 'b'.repeat(600) }, { id: 'call_b' })]),
      toolCalls([toolCall('bash', { command: 'touch one two three; echo made them' }, { id: 'call_many' })]),
      toolCalls([toolCall('bash', { command: 'ls; wc -c a.txt' }, { id: 'call_ls' })]),
      text('stayed within the quota'),
    );
    const agent = defineAgent({ name: 'hoarder', tools: ['file_write', 'bash'] });

    const { output, handle } = await runToEnd(bed.client, bed.worker.taskQueue, { agent, input: 'fill it up' });

    expect(output.response).toBe('stayed within the quota');
    const result = (id: string) => toolStep(output, id);
    expect(result('call_a')).toMatchObject({ isError: false, content: 'Wrote 600 bytes to a.txt.' });
    expect(result('call_b')).toMatchObject({ isError: true });
    expect(result('call_b').content).toMatch(
      /^Error: workspace quota exceeded: the run's workspace would hold 1\.2 KiB in 2 files, over its limit of 1000 B and 3 files\. The changes this call made to the workspace were undone/,
    );
    expect(result('call_b').content).toMatch(/The tool's own output was:\nWrote 600 bytes to b\.txt\.$/);
    expect(result('call_many').content).toMatch(
      /^Error: workspace quota exceeded: .* 600 B in 4 files,[\s\S]*made them/,
    );
    expect(result('call_ls')).toMatchObject({ isError: false, content: 'a.txt\n600 a.txt\nexit code: 0' });
    const manifest = await bed.worker.stores.workspaces.manifest('default', runWorkspace(handle.workflowId));
    expect(manifest).toMatchObject({ generation: 1, bytes: 600 });
  });
});

function toolStep(output: RunOutput, toolCallId: string): { content: string; isError?: boolean } {
  const step = output.steps.find((s) => s.role === 'tool' && s.toolCallId === toolCallId);
  if (!step) throw new Error(`no tool step for ${toolCallId}`);
  return { content: String(step.content), isError: step.isError };
}
