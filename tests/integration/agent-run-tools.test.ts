// Tool calls through real agentRun workflows: every way a call can go wrong becomes an error result the model
// sees next turn; file tools refuse paths outside the run's workspace; bash cannot see the worker's environment.
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineAgent, runWorkspace } from '../../common';
import { recordedToolCalls, testTools } from '../fixtures/test-tools';
import { runToEnd, sentToolResult, sentToolResults } from '../helpers/agent-runs';
import { text, toolCall, toolCalls, type ScriptedToolCall } from '../../devkit/scripted-model-server';
import { uniqueId } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';
import { startTestWorkerProcess, stopWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

describe('agentRun tool calls', () => {
  const bed = useTestBed({ tools: testTools });

  it('turns an unknown tool, malformed JSON, schema-invalid arguments and a throwing tool into error results the model sees, and completes', async () => {
    bed.server.script(
      toolCalls([
        toolCall('no_such_tool', {}, { id: 'call_unknown' }),
        toolCall('record', '{"label": "unterminated', { id: 'call_json' }),
        toolCall('echo', { text: 5, times: 9 }, { id: 'call_schema' }),
        toolCall('explode', { message: 'kaboom from the tool' }, { id: 'call_throw' }),
      ]),
      text('I recovered from four errors'),
    );
    const agent = defineAgent({ name: 'clumsy', tools: ['record', 'echo', 'explode'] });

    const { output, handle } = await runToEnd(bed.client, bed.worker.taskQueue, { agent, input: 'try things' });

    expect(output.terminationReason).toBe('completed');
    expect(output.response).toBe('I recovered from four errors');
    expect(output.metrics).toMatchObject({ toolCalls: 4, toolErrors: 4 });
    const next = bed.server.requests[1];
    expect(sentToolResults(next).map((r) => r.id)).toEqual(['call_unknown', 'call_json', 'call_schema', 'call_throw']);
    expect(sentToolResult(next, 'call_unknown')).toBe(
      'Error: unknown tool "no_such_tool"; available tools: record, echo, explode',
    );
    expect(sentToolResult(next, 'call_json')).toMatch(
      /^Error: arguments for "record" are not valid JSON \(.+\); send a JSON object/,
    );
    const schema = sentToolResult(next, 'call_schema');
    expect(schema).toMatch(/^Error: invalid arguments for "echo":/);
    expect(schema).toMatch(/expected string.*\n.*→ at text/);
    expect(schema).toMatch(/→ at times/);
    expect(sentToolResult(next, 'call_throw')).toBe('Error: tool "explode" failed: kaboom from the tool');
    expect(output.steps.filter((s) => s.role === 'tool').every((s) => s.isError === true)).toBe(true);
    // Nothing ran with bad arguments.
    expect(recordedToolCalls.filter((c) => c.runId === handle.workflowId)).toEqual([]);
  });

  it('runs a quick tool as a local activity inside the workflow task and any other tool as an activity', async () => {
    bed.server.script(
      toolCalls([toolCall('ls', {}, { id: 'call_ls' }), toolCall('echo', { text: 'hi' }, { id: 'call_echo' })]),
      text('listed and echoed'),
    );
    const agent = defineAgent({ name: 'mixed', tools: ['ls', 'echo'] });

    const { output, handle } = await runToEnd(bed.client, bed.worker.taskQueue, { agent, input: 'both' });

    expect(output.response).toBe('listed and echoed');
    expect(sentToolResult(bed.server.requests[1], 'call_echo')).toBe('hi');
    expect(sentToolResult(bed.server.requests[1], 'call_ls')).not.toMatch(/^Error/);
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    // callModel twice and echo, then the root's event log tail; resolveTools and ls (quick) run as local
    // activities, recorded as markers.
    expect(scheduled.sort()).toEqual(['callModel', 'callModel', 'logEvents', 'runTool']);
    // A local activity's marker names its activity type in its `data` detail (JSON).
    const localTypes = events.flatMap((e) => {
      const data = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
      return data ? [(JSON.parse(Buffer.from(data).toString()) as { activity_type?: string }).activity_type] : [];
    });
    expect(localTypes.filter((t) => t === 'runTool')).toHaveLength(1);
    expect(localTypes.filter((t) => t === 'resolveTools')).toHaveLength(1);
  });

  it("truncates a tool output over maxToolOutputBytes and keeps the tool's own metadata next to the truncation record", async () => {
    bed.server.script(toolCalls([toolCall('big_output', { bytes: 5000 }, { id: 'call_big' })]), text('seen it'));
    const agent = defineAgent({ name: 'verbose', tools: ['big_output'] });

    const { output } = await runToEnd(bed.client, bed.worker.taskQueue, {
      agent,
      input: 'dump',
      context: { limits: { maxToolOutputBytes: 1000 } },
    });

    const sent = sentToolResult(bed.server.requests[1], 'call_big');
    expect(sent).toMatch(/\[… output truncated: \d+ of 5000 bytes omitted …\]/);
    expect(Buffer.byteLength(sent)).toBeLessThanOrEqual(1000);
    const step = output.steps.find((s) => s.toolCallId === 'call_big');
    expect(step?.isError).toBe(false);
    expect(step?.metadata).toEqual({
      source: 'big_output',
      requestedBytes: 5000,
      truncated: true,
      originalBytes: 5000,
      ref: expect.stringMatching(/^tr_[0-9a-f]{32}$/),
    });
  });

  it('refuses ../ paths, absolute paths and symlinks that lead outside the workspace in every file tool', async () => {
    const outside = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'agio-outside-')));
    const secret = `TOP-SECRET-${randomUUID()}`;
    await fs.writeFile(path.join(outside, 'secret.txt'), `${secret}\n`);
    const workflowId = uniqueId('escape');
    const workspace = path.join(bed.worker.workspaceRoot, runWorkspace(workflowId));
    await fs.mkdir(workspace, { recursive: true });
    await fs.symlink(outside, path.join(workspace, 'escape'));
    const ways = {
      dotdot: {
        dir: path.relative(workspace, outside),
        file: path.relative(workspace, path.join(outside, 'secret.txt')),
      },
      absolute: { dir: outside, file: path.join(outside, 'secret.txt') },
      symlink: { dir: 'escape', file: 'escape/secret.txt' },
    };
    expect(ways.dotdot.file.startsWith('../')).toBe(true);
    const calls: ScriptedToolCall[] = [];
    for (const [way, { dir, file }] of Object.entries(ways)) {
      const fileInDir = path.join(dir, 'planted.txt');
      calls.push(
        toolCall('file_read', { path: file }, { id: `read_${way}` }),
        toolCall('file_write', { path: fileInDir, content: 'planted' }, { id: `write_${way}` }),
        toolCall('file_edit', { path: file, old_string: 'TOP-SECRET', new_string: 'EDITED' }, { id: `edit_${way}` }),
        toolCall('ls', { path: dir }, { id: `ls_${way}` }),
        toolCall('glob', { pattern: '**/*', path: dir }, { id: `glob_${way}` }),
        toolCall('grep', { pattern: 'SECRET', path: dir }, { id: `grep_${way}` }),
      );
    }
    bed.server.script(toolCalls(calls), text('all refused'));
    const agent = defineAgent({
      name: 'escaper',
      tools: ['file_read', 'file_write', 'file_edit', 'ls', 'glob', 'grep'],
    });

    try {
      const { output } = await runToEnd(
        bed.client,
        bed.worker.taskQueue,
        { agent, input: 'read the secret' },
        workflowId,
      );

      expect(output.terminationReason).toBe('completed');
      const results = sentToolResults(bed.server.requests[1]);
      expect(results.map((r) => r.id)).toEqual(calls.map((c) => c.id));
      for (const call of calls) {
        const content = sentToolResult(bed.server.requests[1], call.id!);
        expect({ id: call.id, content }).toEqual({
          id: call.id,
          content: expect.stringMatching(/^Error: tool "\w+" failed: Path ".+" is outside the run's workspace/),
        });
        expect(content).not.toContain(secret);
      }
      // Nothing outside changed.
      expect(await fs.readdir(outside)).toEqual(['secret.txt']);
      expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe(`${secret}\n`);
    } finally {
      await fs.rm(outside, { recursive: true, force: true });
    }
  });

  describe('on a worker in its own process', () => {
    let proc: WorkerProcess | undefined;
    const secretName = 'AGIO_TEST_WORKER_ONLY_SECRET';
    const secretValue = `worker-secret-${randomUUID()}`;
    const taskQueue = uniqueId('tools-proc');

    beforeAll(async () => {
      proc = await startTestWorkerProcess(
        { taskQueue, model: bed.model(), tools: ['env_has'] },
        { [secretName]: secretValue },
      );
    });
    afterAll(() => stopWorkerProcess(proc));

    it("does not let bash read a variable that is set in the worker's environment", async () => {
      bed.server.script(
        toolCalls([
          toolCall('env_has', { name: secretName }, { id: 'call_env_has' }),
          toolCall('bash', { command: `echo "seen=[\${${secretName}:-unset}]"; env` }, { id: 'call_bash' }),
        ]),
        text('checked'),
      );
      const agent = defineAgent({ name: 'snooper', tools: ['env_has', 'bash'] });

      const { output } = await runToEnd(bed.client, taskQueue, { agent, input: 'print the environment' });

      expect(output.terminationReason).toBe('completed');
      // The worker itself has the variable...
      expect(sentToolResult(bed.server.requests[1], 'call_env_has')).toBe('set');
      // ...but the command the model ran did not see it.
      const bash = sentToolResult(bed.server.requests[1], 'call_bash');
      expect(bash).toContain('seen=[unset]');
      expect(bash).toMatch(/exit code: 0$/);
      expect(bash).not.toContain(secretValue);
      expect(bash).not.toContain(secretName);
      expect(bash).not.toContain('AGIO_TEST_');
    });
  });
});
