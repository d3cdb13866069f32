// The stores wiring of real runs on MongoDB (FerretDB), read back through the bridge: a 5 MB tool output kept out
// of the run's history and read back with get_tool_result (by its own run and tenant only); a nested run's spans
// under the parent's tool span with usage summed; web_search_api sources as citations; and the JSON errors of
// /sessions/:id, /runs/:id/trace and /runs/:id/citations for malformed ids and other tenants' ids.
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { defineTool } from '../../activities/tools/define-tool';
import { createWebSearchTool } from '../../activities/tools/web-search';
import { asTool, defineAgent, type RunOutput } from '../../common';
import { MemorySessionStore, MongoSessionStore, toolResultRef, type TraceNode } from '../../stores';
import { storesFromEnv } from '../../config/stores';
import { text, toolCall, toolCalls, type RecordedRequest } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { sentMessages, sentToolResult, startRun } from '../helpers/agent-runs';
import { request, startBridge, type TestBridge } from '../helpers/bridge';
import { openMongoStores, type TestMongoStores } from '../helpers/mongo-stores';
import { startTestWorker, uniqueId, type TestWorker } from '../helpers/temporal';
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

/** A local stand-in for Serper: POST { q, num } with X-API-KEY, answering organic results. */
async function startSearchServer(apiKey: string, organic: { title: string; link: string; snippet: string }[]) {
  const received: { q: string; num: number; key: string | undefined }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const key = req.headers['x-api-key'] as string | undefined;
      const parsed = JSON.parse(body) as { q: string; num: number };
      received.push({ ...parsed, key });
      if (req.method !== 'POST' || key !== apiKey) {
        res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'bad key' }));
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ searchParameters: { q: parsed.q }, organic: organic.slice(0, parsed.num) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    received,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/search`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('stores wiring on MongoDB', () => {
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
      // Same run id in another tenant (the first run has closed, so a plain Temporal start may reuse its id; AgioClient.start
      // never reuses a run id, see docs/IDEMPOTENCY.md): the ref is the same, the tenant is not.
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

  it("stores a nested run's spans under the parent's tool span, with usage summed over the tree", async () => {
    const child = defineAgent({ name: 'trace-child', instructions: 'You are the trace child.' });
    const parent = defineAgent({
      name: 'trace-parent',
      instructions: 'You are the trace parent.',
      tools: [asTool(child, { description: 'Looks things up.' })],
    });
    bed.server.scriptFor(
      'You are the trace parent.',
      toolCalls([toolCall('trace-child', { task: 'look it up' }, { id: 'call_child' })], {
        usage: { prompt_tokens: 100, completion_tokens: 10 },
      }),
      text('parent done', { usage: { prompt_tokens: 200, completion_tokens: 20 } }),
    );
    bed.server.scriptFor(
      'You are the trace child.',
      text('child done', { usage: { prompt_tokens: 7, completion_tokens: 3 } }),
    );

    const sessionId = uniqueId('trace-session');
    const run = await bed.bridge.agio.start(parent, 'trace this', { tenant: TENANT, sessionId });
    const output: RunOutput = await run.result();
    const rootId = run.runId;
    const childId = `${rootId}/tool/3-call_child`;

    expect(output.usage).toEqual({ promptTokens: 307, completionTokens: 33, totalTokens: 340, costUnknown: true });
    // The run records: the root's usage holds its child's, the child's only its own.
    expect((await mongo.stores.sessions.listRuns(TENANT, sessionId)).map((r) => [r.runId, r.usage])).toEqual([
      [rootId, { promptTokens: 307, completionTokens: 33, totalTokens: 340, costUnknown: true }],
      [childId, { promptTokens: 7, completionTokens: 3, totalTokens: 10, costUnknown: true }],
    ]);
    const { status, body } = await request(`${bed.bridge.url}/runs/${rootId}/trace`, { token: TOKEN });
    expect(status).toBe(200);
    expect(body.traceId).toBe(rootId);
    expect(body.spans).toHaveLength(6);
    const shape = (node: TraceNode): unknown => ({
      id: node.span.spanId,
      kind: node.span.kind,
      name: node.span.name,
      status: node.span.status,
      runId: node.span.runId,
      ...(node.span.usage ? { usage: node.span.usage } : {}),
      total: node.totalUsage,
      children: node.children.map(shape),
    });
    // The scripted model has no price: every usage says its cost is unknown.
    const usage = (promptTokens: number, completionTokens: number) => ({
      promptTokens,
      completionTokens,
      totalTokens: promptTokens + completionTokens,
      costUnknown: true,
    });
    expect(body.tree.map(shape)).toEqual([
      {
        id: rootId,
        kind: 'run',
        name: 'trace-parent',
        status: 'ok',
        runId: rootId,
        total: usage(307, 33),
        children: [
          {
            id: `${rootId}:2`,
            kind: 'model',
            name: 'model',
            status: 'ok',
            runId: rootId,
            usage: usage(100, 10),
            total: usage(100, 10),
            children: [],
          },
          {
            id: `${rootId}:tool:3-call_child`,
            kind: 'tool',
            name: 'trace-child',
            status: 'ok',
            runId: rootId,
            total: usage(7, 3),
            children: [
              {
                id: childId,
                kind: 'run',
                name: 'trace-child',
                status: 'ok',
                runId: childId,
                total: usage(7, 3),
                children: [
                  {
                    id: `${childId}:2`,
                    kind: 'model',
                    name: 'model',
                    status: 'ok',
                    runId: childId,
                    usage: usage(7, 3),
                    total: usage(7, 3),
                    children: [],
                  },
                ],
              },
            ],
          },
          {
            id: `${rootId}:4`,
            kind: 'model',
            name: 'model',
            status: 'ok',
            runId: rootId,
            usage: usage(200, 20),
            total: usage(200, 20),
            children: [],
          },
        ],
      },
    ]);
    // Every span ended, and no child span starts before its parent or ends after it.
    const within = (node: TraceNode): void => {
      expect(node.span.endedAt).toBeGreaterThanOrEqual(node.span.startedAt);
      for (const kid of node.children) {
        expect(kid.span.startedAt).toBeGreaterThanOrEqual(node.span.startedAt);
        expect(kid.span.endedAt).toBeLessThanOrEqual(node.span.endedAt!);
        within(kid);
      }
    };
    within(body.tree[0]);
  });

  describe('citations of web_search_api', () => {
    let search: Awaited<ReturnType<typeof startSearchServer>>;
    let webWorker: TestWorker;
    let webBridge: TestBridge;
    beforeAll(async () => {
      search = await startSearchServer('serper-key', [
        { title: 'Durable execution', link: 'https://example.com/durable', snippet: 'Workflows survive crashes.' },
        { title: 'Agents', link: 'https://example.com/agents', snippet: 'Agents call tools.' },
        { title: 'Durable execution, again', link: 'https://example.com/durable', snippet: 'The same page twice.' },
        { title: 'Not asked for', link: 'https://example.com/fourth', snippet: 'Beyond num.' },
      ]);
      webWorker = await startTestWorker({
        model: bed.model(),
        builtinTools: false,
        tools: [createWebSearchTool({ endpoint: search.url, apiKey: 'serper-key' })],
        stores: mongo.stores,
      });
      webBridge = await startBridge({
        client: bed.client,
        taskQueue: webWorker.taskQueue,
        tokens: TOKENS,
        stores: webWorker.stores,
      });
    });
    afterAll(async () => {
      await webBridge?.close();
      await webWorker?.stop();
      await search?.close();
    });

    it('records the sources a search returned, and GET /runs/:id/citations lists them in order, once per url', async () => {
      bed.server.script(
        toolCalls([toolCall('web_search_api', { query: 'durable agents', num: 3 }, { id: 'call_search' })]),
        text('durable agents are cited'),
      );
      const agent = defineAgent({ name: 'researcher', instructions: 'You research.', tools: ['web_search_api'] });

      const run = await webBridge.agio.start(agent, 'research durable agents', { tenant: TENANT });
      expect((await run.result()).response).toBe('durable agents are cited');

      expect(search.received).toEqual([{ q: 'durable agents', num: 3, key: 'serper-key' }]);
      expect(sentToolResult(bed.server.requests[1], 'call_search')).toContain(
        '1. Durable execution\n   https://example.com/durable',
      );
      const { status, body } = await request(`${webBridge.url}/runs/${run.runId}/citations`, { token: TOKEN });
      expect(status).toBe(200);
      const common = {
        runId: run.runId,
        stepId: `${run.runId}:3`,
        toolCallId: 'call_search',
        createdAt: expect.any(Number),
      };
      expect(body).toEqual({
        runId: run.runId,
        citations: [
          {
            ...common,
            url: 'https://example.com/durable',
            title: 'Durable execution',
            snippet: 'Workflows survive crashes.',
          },
          { ...common, url: 'https://example.com/agents', title: 'Agents', snippet: 'Agents call tools.' },
        ],
      });
      // The run's tool step keeps the sources too.
      const step = (await mongo.stores.sessions.listSteps(TENANT, run.runId)).find(
        (s) => s.toolCallId === 'call_search',
      );
      expect(step?.id).toBe(`${run.runId}:3`);
      expect((step?.metadata as { sources: unknown[] }).sources).toHaveLength(3);
      // Another tenant asking for this run's citations gets the same 404 as for a run that does not exist.
      const other = await request(`${webBridge.url}/runs/${run.runId}/citations`, { token: OTHER_TOKEN });
      expect(other).toEqual({
        status: 404,
        body: { error: { code: 'run_not_found', message: `no run with id "${run.runId}"` } },
      });
      // A worker without the built-in tools still serves get_tool_result: every worker stores large outputs.
      expect(webWorker.tools.find('get_tool_result')).toBeDefined();
    });
  });

  it('takes MongoDB stores from MONGODB_URI, in the database the URI names, and memory stores without one', async () => {
    const fromUri = await storesFromEnv({ MONGODB_URI: mongo.uri });
    try {
      expect(fromUri.stores.sessions).toBeInstanceOf(MongoSessionStore);
      const runId = uniqueId('env-run');
      await fromUri.stores.sessions.recordRun({
        tenant: TENANT,
        runId,
        rootRunId: runId,
        agent: 'env',
        status: 'running',
        startedAt: 1,
      });
      // Written through the URI's database: the test's own stores (same database) read it.
      expect(await mongo.client.db(mongo.dbName).collection('runs').countDocuments({ tenant: TENANT, runId })).toBe(1);
    } finally {
      await fromUri.close();
    }
    expect((await storesFromEnv({})).stores.sessions).toBeInstanceOf(MemorySessionStore);
  });

  describe('errors of /sessions/:id, /runs/:id/trace and /runs/:id/citations', () => {
    let runId: string;
    let sessionId: string;
    beforeAll(async () => {
      bed.server.reset();
      bed.server.script(text('hello'));
      sessionId = uniqueId('errors-session');
      const run = await bed.bridge.agio.start(defineAgent({ name: 'greeter' }), 'hi', { tenant: TENANT, sessionId });
      await run.result();
      runId = run.runId;
    });

    it('answers 400 with a JSON error for malformed ids', async () => {
      const bad = ['bad$id', 'x'.repeat(600), '%00', 'a%20b', '%7B%22%24ne%22%3Anull%7D'];
      for (const id of bad) {
        for (const path of [`/runs/${id}/trace`, `/runs/${id}/citations`]) {
          expect({ path, ...(await request(`${bed.bridge.url}${path}`, { token: TOKEN })) }).toEqual({
            path,
            status: 400,
            body: { error: { code: 'invalid_request', message: 'id: malformed run id' } },
          });
        }
        const path = `/sessions/${id}`;
        expect({ path, ...(await request(`${bed.bridge.url}${path}`, { token: TOKEN })) }).toEqual({
          path,
          status: 400,
          body: { error: { code: 'invalid_request', message: 'id: malformed session id' } },
        });
      }
      // What the router itself refuses (a segment longer than any id, a broken percent-encoding) answers alike.
      for (const [id, message] of [
        ['r'.repeat(3000), 'a path segment is longer than 2048 characters'],
        ['%zz', 'the URL has a malformed path segment'],
      ]) {
        for (const path of [`/runs/${id}/trace`, `/runs/${id}/citations`, `/sessions/${id}`]) {
          expect({ path, ...(await request(`${bed.bridge.url}${path}`, { token: TOKEN })) }).toEqual({
            path,
            status: 400,
            body: { error: { code: 'invalid_request', message } },
          });
        }
      }
      // 128 characters is still a session id; 129 is not.
      expect((await request(`${bed.bridge.url}/sessions/${'s'.repeat(128)}`, { token: TOKEN })).status).toBe(404);
      expect((await request(`${bed.bridge.url}/sessions/${'s'.repeat(129)}`, { token: TOKEN })).status).toBe(400);
    });

    it("answers 404 for another tenant's ids exactly as for ids that do not exist", async () => {
      expect(await request(`${bed.bridge.url}/sessions/${sessionId}`, { token: TOKEN })).toMatchObject({
        status: 200,
        body: { sessionId, runs: [{ runId }] },
      });
      expect((await request(`${bed.bridge.url}/runs/${runId}/trace`, { token: TOKEN })).status).toBe(200);
      expect(await request(`${bed.bridge.url}/runs/${runId}/citations`, { token: TOKEN })).toEqual({
        status: 200,
        body: { runId, citations: [] },
      });

      const missingRun = `run-${'0'.repeat(8)}-missing`;
      const missingSession = 'no-such-session';
      for (const [id, sid] of [
        [runId, sessionId],
        [missingRun, missingSession],
      ]) {
        const token = id === runId ? OTHER_TOKEN : TOKEN;
        expect(await request(`${bed.bridge.url}/sessions/${sid}`, { token })).toEqual({
          status: 404,
          body: { error: { code: 'session_not_found', message: `no session with id "${sid}"` } },
        });
        for (const route of ['trace', 'citations']) {
          expect(await request(`${bed.bridge.url}/runs/${id}/${route}`, { token })).toEqual({
            status: 404,
            body: { error: { code: 'run_not_found', message: `no run with id "${id}"` } },
          });
        }
      }
      // And without a token, nothing at all.
      for (const path of [`/sessions/${sessionId}`, `/runs/${runId}/trace`, `/runs/${runId}/citations`]) {
        expect((await request(`${bed.bridge.url}${path}`)).status).toBe(401);
      }
    });
  });
});
