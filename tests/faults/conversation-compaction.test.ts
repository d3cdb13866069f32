// A conversation that grows toward the model-input limit is compacted and the run goes on: a coder that writes 36
// files of 60 kB (2.2 MB of tool-call arguments, twice the default maxModelInputBytes) completes. Older file contents
// and tool outputs are replaced with references the model can read back with get_tool_result, a CONTEXT_COMPACTED
// event says what was replaced, no model call is sent more than the limit, and the run's output (which carries its
// steps) stays under Temporal's payload cap. Before, the run failed with ModelInputTooLarge after 17 files.
import fs from 'node:fs';
import path from 'node:path';
import { defineAgent, runWorkspace, type AgioEvent } from '../../common';
import { text, toolCall, toolCalls, type RecordedRequest } from '../../devkit/scripted-model-server';
import { sentToolResult, sentToolResults } from '../helpers/agent-runs';
import { expectWholeStream, readStream } from '../helpers/nested-runs';
import { testTools } from '../fixtures/test-tools';
import { useTestBed } from '../helpers/test-bed';

const FILES = 36;
const FILE_BYTES = 60 * 1024;
const MAX_MODEL_INPUT = 1024 * 1024;
const REF = /tr_[0-9a-f]{32}/g;

/** The content of file i: its own letter pattern, so a file read back is known to be that file. */
const fileContent = (i: number) =>
  `// file ${i}\n` + String.fromCharCode(97 + (i % 26)).repeat(FILE_BYTES - 12 - String(i).length);

const requestBytes = (req: RecordedRequest) =>
  Buffer.byteLength(JSON.stringify((req.body as { messages: unknown }).messages));

describe('a conversation that outgrows the model-input limit', () => {
  const bed = useTestBed({ tools: testTools });

  it('is compacted with readable references, and a coder writing 36 files of 60 kB completes', async () => {
    let readBack = '';
    bed.server.script(
      ...Array.from({ length: FILES }, (_, i) =>
        toolCalls([
          toolCall('file_write', { path: `src/file-${i}.ts`, content: fileContent(i) }, { id: `call_write_${i}` }),
        ]),
      ),
      // The model reads back the oldest compacted content by the reference the conversation gives it.
      (req) => {
        const refs = JSON.stringify(req.body).match(REF) ?? [];
        expect(refs.length).toBeGreaterThan(0);
        return toolCalls([toolCall('get_tool_result', { ref: refs[0] }, { id: 'call_read_back' })]);
      },
      (req) => {
        readBack = sentToolResult(req, 'call_read_back');
        return text(`Wrote ${FILES} files.`);
      },
    );
    const coder = defineAgent({ name: 'coder', tools: ['file_write', 'get_tool_result'], maxSteps: 50 });
    const run = await bed.agio.start(coder, 'write the project');
    // Read live: the run's history passes Temporal's suggestion to continue as new (each file is in it twice).
    const [output, events] = await Promise.all([run.result(), readStream(bed.client, run.runId)]);

    expect(output.response).toBe(`Wrote ${FILES} files.`);
    expect(output.terminationReason).toBe('completed');
    for (let i = 0; i < FILES; i++) {
      expect(
        await fs.promises.readFile(
          path.join(bed.worker.workspaceRoot, runWorkspace(run.runId), `src/file-${i}.ts`),
          'utf8',
        ),
      ).toBe(fileContent(i));
    }
    // Every call fitted; the conversation stayed bounded instead of growing with every file.
    const sizes = bed.server.requests.map(requestBytes);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MAX_MODEL_INPUT);
    // The first file's arguments, compacted away, were read back (get_tool_result's first page of 60,000 bytes).
    const firstArguments = JSON.stringify({ path: 'src/file-0.ts', content: fileContent(0) });
    expect(readBack.slice(0, 60_000) === firstArguments.slice(0, 60_000)).toBe(true);

    expectWholeStream(events, run.runId);
    const compactions = events.filter(
      (
        e,
      ): e is AgioEvent & {
        data: {
          items: { stepIndex: number; part: string; bytes: number; ref?: string }[];
          bytesBefore: number;
          bytesAfter: number;
        };
      } => e.type === 'CONTEXT_COMPACTED',
    );
    expect(compactions.length).toBeGreaterThan(0);
    for (const c of compactions) {
      expect(c.data.bytesAfter).toBeLessThan(c.data.bytesBefore);
      expect(c.data.items.length).toBeGreaterThan(0);
    }
    const items = compactions.flatMap((c) => c.data.items);
    expect(items[0]).toMatchObject({
      part: 'arguments',
      bytes: expect.any(Number),
      ref: expect.stringMatching(/^tr_/),
    });
    // Nothing is compacted twice.
    expect(new Set(items.map((i) => `${i.stepIndex}:${i.part}`)).size).toBe(items.length);
    // The output carries the steps, compacted: it fits far below the 2 MiB payload cap.
    expect(output.steps.length).toBe(1 + 2 * FILES + 2 + 1); // the input, the writes, the read-back, the answer
    expect(Buffer.byteLength(JSON.stringify(output))).toBeLessThan(MAX_MODEL_INPUT);
  }, 180_000);

  it("compacts older tool outputs at the run's own threshold, carries the compaction over continue-as-new, and names the store when get_tool_result is not offered", async () => {
    const OUTPUT = 30_000;
    const calls = 8;
    bed.server.script(
      ...Array.from({ length: calls }, (_, i) =>
        toolCalls([toolCall('big_output', { bytes: OUTPUT }, { id: `call_big_${i}` })]),
      ),
      text('done'),
    );
    const limits = { compactModelInputBytes: 100_000, maxModelInputBytes: 200_000, continueAsNewAfterModelCalls: 5 };
    const run = await bed.agio.start(defineAgent({ name: 'hoarder', tools: ['big_output'], maxSteps: 20 }), 'collect', {
      limits,
    });
    const [output, events] = await Promise.all([run.result(), readStream(bed.client, run.runId)]);

    expect(output.response).toBe('done');
    const sizes = bed.server.requests.map(requestBytes);
    // Compaction starts past 100 kB and brings the conversation down to about two thirds of it.
    expect(Math.max(...sizes)).toBeLessThan(100_000 + OUTPUT + 2_000);
    const last = sentToolResults(bed.server.requests.at(-1)!);
    expect(last.at(-1)!.content).toHaveLength(OUTPUT); // the newest output stays whole
    const compacted = last.filter((r) => r.content.includes('[compacted'));
    expect(compacted.length).toBeGreaterThan(0);
    for (const r of compacted) {
      expect(r.content.startsWith('abcdefghijklmnopqrstuvwxyz0123456789\n')).toBe(true);
      expect(r.content).toMatch(/\(30000 bytes\): stored as tr_[0-9a-f]{32}\]$/);
      expect(r.content).not.toContain('get_tool_result');
    }
    // The steps carried over continue-as-new kept their compaction: each output was compacted once, with its record.
    const items = events
      .filter((e) => e.type === 'CONTEXT_COMPACTED')
      .flatMap((e) => (e.data as { items: { stepIndex: number; part: string }[] }).items);
    expect(items.every((i) => i.part === 'output')).toBe(true);
    expect(new Set(items.map((i) => i.stepIndex)).size).toBe(items.length);
    const withRecord = output.steps.filter((s) => Array.isArray(s.metadata?.compacted));
    expect(withRecord.map((s) => s.index).sort((a, b) => a - b)).toEqual(
      items.map((i) => i.stepIndex).sort((a, b) => a - b),
    );
    expect(bed.server.requests.length).toBe(calls + 1);
  }, 120_000);

  it('returns an output whose steps would pass the payload cap without them, saying so, instead of never completing', async () => {
    // Reasoning is kept in the steps but never sent back to the model: three turns of 700 kB are not compacted.
    const reasoning = 'r'.repeat(700_000);
    bed.server.script(
      ...[0, 1].map((i) =>
        toolCalls([toolCall('big_output', { bytes: 10 }, { id: `call_small_${i}` })], {
          reasoning,
          chunkSize: 64 * 1024,
        }),
      ),
      text('thought a lot', { reasoning, chunkSize: 64 * 1024 }),
    );
    const run = await bed.agio.start(defineAgent({ name: 'thinker', tools: ['big_output'] }), 'think');
    const output = await run.result();

    expect(output.response).toBe('thought a lot');
    expect(output.steps).toEqual([]);
    expect(output.stepsOmitted).toBe(1 + 2 * 2 + 1);
    expect(output.metrics.steps).toBe(6);
  }, 60_000);
});

describe('a session whose earlier runs outgrew the model-input limit', () => {
  const bed = useTestBed();

  it('continues: the next run gets the earlier conversation shortened to half the limit, oldest parts first', async () => {
    const FILE = 300 * 1024;
    // Each answer follows from the request (how many files it has written, which run asks), so a model call tried
    // again (a heartbeat missed on a loaded machine) gets the same answer instead of the next one.
    bed.server.setDefault((req) => {
      const messages = (req.body as { messages: { role: string; content: string | null }[] }).messages;
      if (messages.at(-1)?.content === 'what did you do?') return text('I remember writing them');
      const written = messages.filter((m) => m.role === 'tool').length;
      if (written >= 4) return text('wrote four big files');
      return toolCalls([
        toolCall(
          'file_write',
          { path: `big-${written}.txt`, content: String(written).repeat(FILE) },
          { id: `call_big_${written}` },
        ),
      ]);
    });
    const writer = defineAgent({ name: 'writer', tools: ['file_write'] });
    const first = await bed.agio.start(writer, 'write four big files', { sessionId: 'big-session' });
    expect((await first.result()).response).toBe('wrote four big files');

    const second = await bed.agio.start(writer, 'what did you do?', { sessionId: 'big-session' });
    expect((await second.result()).response).toBe('I remember writing them');
    const sent = bed.server.requests.at(-1)!;
    expect(requestBytes(sent)).toBeLessThanOrEqual(MAX_MODEL_INPUT / 2 + 2_000);
    const messages = sent.body.messages as {
      role: string;
      content: string | null;
      tool_calls?: { function: { arguments: string } }[];
    }[];
    // The earlier run is still there, in order: its input, its calls (their paths kept), its answer, then the new
    // input.
    expect(messages[0]).toEqual({ role: 'user', content: 'write four big files' });
    expect(messages.at(-2)).toMatchObject({ role: 'assistant', content: 'wrote four big files' });
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'what did you do?' });
    const args = messages
      .flatMap((m) => m.tool_calls ?? [])
      .map((c) => JSON.parse(c.function.arguments) as { path: string; content: string });
    expect(args.map((a) => a.path)).toEqual(['big-0.txt', 'big-1.txt', 'big-2.txt', 'big-3.txt']);
    expect(args[0].content).toMatch(/^\[\d+ bytes of an earlier run of this session left out/);
  }, 120_000);
});
