// A worker where no sandbox can start: bash and grep refuse with SandboxUnavailable (not retried), the model reads why,
// and the run goes on; the in-process file tools still work.
import { defineAgent } from '../../common';
import { Sandbox } from '../../activities/sandbox/sandbox';
import { activities, runToEnd, sentToolResult } from '../helpers/agent-runs';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { useTestBed } from '../helpers/test-bed';

describe('a worker without a sandbox', () => {
  const bed = useTestBed({
    workerOptions: { sandbox: new Sandbox({ kind: 'unavailable', reason: 'bubblewrap (bwrap) is not installed' }) },
  });

  it('refuses bash and grep with SandboxUnavailable and still runs the file tools', async () => {
    bed.server.script(
      toolCalls([
        toolCall('bash', { command: 'cat /proc/$PPID/environ' }, { id: 'call_bash' }),
        toolCall('file_write', { path: 'a.txt', content: 'ok' }, { id: 'call_write' }),
        toolCall('grep', { pattern: 'ok' }, { id: 'call_grep' }),
      ]),
      text('noted'),
    );
    const agent = defineAgent({
      name: 'unsandboxed',
      tools: ['bash', 'file_write', 'grep'],
      sequentialToolCalls: true,
    });
    const { output, handle } = await runToEnd(bed.client, bed.worker.taskQueue, { agent, input: 'try' });

    expect(output.terminationReason).toBe('completed');
    const next = bed.server.requests[1];
    expect(sentToolResult(next, 'call_bash')).toMatch(
      /^Error: tool "bash" did not finish: .*cannot run workspace tools: no sandbox can start \(bubblewrap \(bwrap\) is not installed\)/,
    );
    expect(sentToolResult(next, 'call_write')).toBe('Wrote 2 bytes to a.txt.');
    expect(sentToolResult(next, 'call_grep')).toMatch(
      /^Error: tool "grep" did not finish: .*cannot run workspace tools/,
    );
    // bash failed (as SandboxUnavailable), file_write completed.
    expect(activities(await handle.fetchHistory(), 'runTool').map((a) => a.completed)).toEqual([false, true]);
  });
});
