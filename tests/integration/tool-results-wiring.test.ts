// A 5 MB tool output of a real run on MongoDB (FerretDB): kept out of the run's history, the model sees a truncated
// copy with a ref and reads the stored output back with get_tool_result, in pages within the run's own limit, by its
// own run and tenant only.
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { z } from 'zod';
import { defineTool } from '../../activities/tools/define-tool';
import { defineAgent, type RunOutput } from '../../common';
import { toolResultRef } from '../../stores';
import { text, toolCall, toolCalls, type RecordedRequest } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { sentMessages, sentToolResult, startRun } from '../helpers/agent-runs';
import { openMongoStores, type TestMongoStores } from '../helpers/mongo-stores';
import { useTestBed } from '../helpers/test-bed';

const TENANT = 'tenant-a';
const OTHER_TENANT = 'tenant-b';
const TOKEN = 'token-a';
const OTHER_TOKEN = 'token-b';
const TOKENS = `${TOKEN}:${TENANT},${OTHER_TOKEN}:${OTHER_TENANT}`;
const FIVE_MB = 5 * 1024 * 1024;
const DEFAULT_MAX_TOOL_OUTPUT_BYTES = 64 * 1024;

/**
 * At least `bytes` bytes of numbered lines (ASCII: exactly `bytes`): every slice of it is recognisable, so a page
 * read back can be checked exactly. Multibyte lines mix 2-, 3- and 4-byte characters (the last a surrogate pair).
 */
function hugeContent(bytes: number, multibyte = false): string {
  const lines: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `${String(i).padStart(8, '0')} ${multibyte ? 'Grüße aus 東京 🚀 —' : 'abcdefghijklmnopqrstuvwxyz0123456789'}\n`;
    lines.push(line);
    size += Buffer.byteLength(line);
  }
  return multibyte ? lines.join('') : lines.join('').slice(0, bytes);
}

const hugeOutputTool = defineTool({
  name: 'huge_output',
  description: 'Answers with `bytes` bytes of numbered lines.',
  parameters: z.object({
    bytes: z
      .number()
      .int()
      .min(1)
      .max(10 * 1024 * 1024),
    multibyte: z.boolean().optional(),
  }),
  idempotent: true,
  async execute({ bytes, multibyte }) {
    return hugeContent(bytes, multibyte);
  },
});

/** The content of the last tool message of a request. */
function lastToolResult(req: RecordedRequest): string {
  const tools = sentMessages(req).filter((m) => m.role === 'tool');
  if (!tools.length) throw new Error('the request holds no tool result');
  return tools[tools.length - 1].content ?? '';
}

const REF_HINT = /\n\[full output stored: call get_tool_result with \{"ref": "(tr_[0-9a-f]{32})"\}\]$/;
const MORE = /\n\[… (\d+) more characters: call again with offset (\d+)\]$/;

describe('a run with a 5 MB tool output on MongoDB', () => {
  let mongo: TestMongoStores;
  const bed = useTestBed({
    tools: [...testTools, hugeOutputTool],
    stores: async () => (mongo = await openMongoStores()),
    bridge: { tokens: TOKENS },
  });

  describe('a 5 MB tool output', () => {
    const agent = defineAgent({
      name: 'reader',
      instructions: 'You read big outputs.',
      tools: ['huge_output', 'get_tool_result'],
    });
    let runId: string;
    let ref: string;
    let full: string;

    it('stays out of the history: the model sees a truncated copy with a ref, and reads the stored output back with get_tool_result', async () => {
      full = hugeContent(FIVE_MB);
      bed.server.script(
        toolCalls([toolCall('huge_output', { bytes: FIVE_MB }, { id: 'call_huge' })]),
        // The model follows the hint: it reads the ref from the tool result it was given.
        (req) =>
          toolCalls([
            toolCall(
              'get_tool_result',
              { ref: REF_HINT.exec(lastToolResult(req))?.[1] ?? 'no ref in the result' },
              { id: 'call_read_head' },
            ),
          ]),
        // Then the last 1000 characters, at the offset the first page's trailer makes it compute.
        (req) => {
          const more = MORE.exec(lastToolResult(req));
          const total = more ? Number(more[1]) + Number(more[2]) : 0;
          return toolCalls([
            toolCall(
              'get_tool_result',
              { ref: REF_HINT.exec(lastToolResult(bed.server.requests[1]))?.[1], offset: total - 1000 },
              { id: 'call_read_tail' },
            ),
          ]);
        },
        text('read it all'),
      );

      const run = await bed.bridge.agio.start(agent, 'read the big output', { tenant: TENANT });
      const output = await run.result();
      runId = run.runId;

      expect(output.response).toBe('read it all');
      expect(bed.server.requests).toHaveLength(4);
      // What the model saw of the 5 MB: a truncated copy within the limit, ending in the ref of the stored output.
      const seen = sentToolResult(bed.server.requests[1], 'call_huge');
      expect(Buffer.byteLength(seen)).toBeLessThanOrEqual(DEFAULT_MAX_TOOL_OUTPUT_BYTES);
      expect(seen).toMatch(new RegExp(`\\n\\[… output truncated: \\d+ of ${FIVE_MB} bytes omitted …\\]\\n`));
      ref = REF_HINT.exec(seen)?.[1] ?? '';
      expect(ref).toBe(toolResultRef(runId, 'call_huge', `${runId}:3`));
      expect(seen.startsWith(full.slice(0, 1000))).toBe(true);
      const toolStep = output.steps.find((s) => s.toolCallId === 'call_huge');
      expect(toolStep?.content).toBe(seen);
      expect(toolStep?.metadata).toEqual({ truncated: true, originalBytes: FIVE_MB, ref });
      // The store holds all 5 MB, exactly.
      const stored = await mongo.stores.toolResults.get(TENANT, runId, ref);
      expect(stored?.length).toBe(FIVE_MB);
      expect(stored === full).toBe(true);

      // get_tool_result: the first page is the stored output from offset 0, whole (not truncated again) and within
      // the limit, with a trailer saying where to go on.
      const head = sentToolResult(bed.server.requests[2], 'call_read_head');
      expect(head).not.toMatch(/output truncated|full output stored/);
      expect(Buffer.byteLength(head)).toBeLessThanOrEqual(DEFAULT_MAX_TOOL_OUTPUT_BYTES);
      const more = MORE.exec(head);
      expect(more).not.toBeNull();
      const [remaining, next] = [Number(more![1]), Number(more![2])];
      expect(next).toBeGreaterThan(0);
      expect(next + remaining).toBe(FIVE_MB);
      expect(head.slice(0, head.length - more![0].length) === full.slice(0, next)).toBe(true);
      // The tail read at an offset: the last 1000 characters, exactly.
      expect(sentToolResult(bed.server.requests[3], 'call_read_tail')).toBe(full.slice(FIVE_MB - 1000));
      expect(output.steps.find((s) => s.toolCallId === 'call_read_tail')?.metadata).toEqual({
        ref,
        offset: FIVE_MB - 1000,
        totalChars: FIVE_MB,
      });

      // The run's whole history (every activity input and result, the output's steps) is far below 5 MB.
      const history = historyToJSON(await run.workflow.fetchHistory());
      expect(history.length).toBeLessThan(1024 * 1024);
    });

    it("pages get_tool_result within the run's own maxToolOutputBytes, on multibyte text, so no page is truncated again", async () => {
      const limit = 4096;
      const content = hugeContent(100_000, true);
      const refIn = (req: RecordedRequest) =>
        REF_HINT.exec(sentToolResult(req, 'call_multi'))?.[1] ?? 'no ref in the result';
      const nextOffset = (req: RecordedRequest, id: string) => Number(MORE.exec(sentToolResult(req, id))?.[2] ?? -1);
      bed.server.script(
        toolCalls([toolCall('huge_output', { bytes: 100_000, multibyte: true }, { id: 'call_multi' })]),
        (req) => toolCalls([toolCall('get_tool_result', { ref: refIn(req) }, { id: 'call_page_1' })]),
        (req) =>
          toolCalls([
            toolCall(
              'get_tool_result',
              { ref: refIn(req), offset: nextOffset(req, 'call_page_1') },
              { id: 'call_page_2' },
            ),
          ]),
        text('paged'),
      );

      const run = await bed.bridge.agio.start(agent, 'read it page by page', {
        tenant: TENANT,
        limits: { maxToolOutputBytes: limit },
      });
      expect((await run.result()).response).toBe('paged');

      const seen = sentToolResult(bed.server.requests[1], 'call_multi');
      expect(Buffer.byteLength(seen)).toBeLessThanOrEqual(limit);
      expect(seen).not.toContain('\uFFFD');
      let offset = 0;
      for (const [i, id] of [
        [2, 'call_page_1'],
        [3, 'call_page_2'],
      ] as const) {
        const page = sentToolResult(bed.server.requests[i], id);
        expect(page).not.toMatch(/output truncated|full output stored/);
        expect(Buffer.byteLength(page)).toBeLessThanOrEqual(limit);
        const more = MORE.exec(page);
        expect(more).not.toBeNull();
        const next = Number(more![2]);
        expect(Number(more![1])).toBe(content.length - next);
        // Pages join up with no gap and never split a character (not even a surrogate pair).
        expect(page.slice(0, page.length - more![0].length) === content.slice(offset, next)).toBe(true);
        expect(next - offset).toBeGreaterThan(limit / 8);
        offset = next;
      }
    });

    it('cannot be read by another run of the same tenant, nor by a run of another tenant with the same run id', async () => {
      expect(ref).toMatch(/^tr_/);
      const readTheRef = () => toolCalls([toolCall('get_tool_result', { ref }, { id: 'call_steal' })]);
      bed.server.script(readTheRef(), text('nothing there'), readTheRef(), text('nothing there either'));
      const refused = `Error: tool "get_tool_result" failed: no stored output "${ref}" for this run`;

      const otherRun = await bed.bridge.agio.start(agent, 'read the other run', { tenant: TENANT });
      expect((await otherRun.result()).response).toBe('nothing there');
      expect(sentToolResult(bed.server.requests[1], 'call_steal')).toBe(refused);
      // Same run id in another tenant (the first run has closed, so a plain Temporal start may reuse its id;
      // AgioClient.start never reuses a run id, see docs/IDEMPOTENCY.md): the ref is the same, the tenant is not.
      const sameIdOtherTenant = await startRun(
        bed.client,
        bed.worker.taskQueue,
        { agent, input: 'read it from another tenant', context: { tenant: OTHER_TENANT } },
        runId,
      );
      expect(((await sameIdOtherTenant.result()) as RunOutput).response).toBe('nothing there either');
      expect(sentToolResult(bed.server.requests[3], 'call_steal')).toBe(refused);

      expect(await mongo.stores.toolResults.get(OTHER_TENANT, runId, ref)).toBeUndefined();
      expect(await mongo.stores.toolResults.get(TENANT, otherRun.runId, ref)).toBeUndefined();
      expect((await mongo.stores.toolResults.get(TENANT, runId, ref))?.length).toBe(FIVE_MB);
    });
  });
});
