// A child's file tools (docs/ARCHITECTURE.md, "Nested runs") work in `subagents/<name>/` of the root's workspace and
// no further: the note it writes lands there, an escape to the parent's files is refused, and the parent reads the
// note.
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { asTool, defineAgent, runWorkspace } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { sentToolResult } from '../helpers/agent-runs';
import { requestsOf, runAndStream } from '../helpers/nested-runs';
import { uniqueId } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';

describe("an agent tool's workspace", () => {
  const bed = useTestBed({ tools: testTools });

  const run = (agent: ReturnType<typeof defineAgent>, input: string, workflowId?: string) =>
    runAndStream(bed.client, bed.worker.taskQueue, { agent, input }, workflowId);

  it("confines a child's file tools to subagents/<name>/ of the root's workspace", async () => {
    const rootRunId = uniqueId('workspace');
    const rootWorkspace = path.join(bed.worker.workspaceRoot, runWorkspace(rootRunId));
    await fs.mkdir(rootWorkspace, { recursive: true });
    const secret = `PARENT-SECRET-${randomUUID()}`;
    await fs.writeFile(path.join(rootWorkspace, 'secret.txt'), secret);
    const scribe = defineAgent({
      name: 'scribe',
      instructions: 'You are the scribe.',
      tools: ['file_write', 'file_read'],
    });
    const parent = defineAgent({
      name: 'parent',
      instructions: 'You are the parent.',
      tools: ['file_read', asTool(scribe, { description: 'Writes notes.' })],
    });
    bed.server.scriptFor(
      'You are the parent.',
      toolCalls([toolCall('scribe', { task: 'write a note' }, { id: 'call_scribe' })]),
      toolCalls([toolCall('file_read', { path: 'subagents/scribe/note.txt' }, { id: 'call_parent_read' })]),
      text('the note is there'),
    );
    bed.server.scriptFor(
      'You are the scribe.',
      toolCalls([
        toolCall('file_write', { path: 'note.txt', content: 'a note from the scribe' }, { id: 'call_write' }),
        toolCall('file_read', { path: '../../secret.txt' }, { id: 'call_escape' }),
      ]),
      text('note written'),
    );

    const { output } = await run(parent, 'take notes', rootRunId);

    expect(output.response).toBe('the note is there');
    await expect(fs.readFile(path.join(rootWorkspace, 'subagents', 'scribe', 'note.txt'), 'utf8')).resolves.toBe(
      'a note from the scribe',
    );
    await expect(fs.access(path.join(rootWorkspace, 'note.txt'))).rejects.toThrow();
    const childSecond = requestsOf(bed.server, 'You are the scribe.')[1];
    const escape = sentToolResult(childSecond, 'call_escape');
    expect(escape).toMatch(/^Error: .*outside the run's workspace/);
    expect(JSON.stringify(bed.server.requests.map((r) => r.body))).not.toContain(secret);
    // The parent shares the workspace ("the heap"): it reads the child's note at subagents/scribe/.
    expect(sentToolResult(requestsOf(bed.server, 'You are the parent.')[2], 'call_parent_read')).toContain(
      'a note from the scribe',
    );
  });
});
