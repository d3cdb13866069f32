// The stores wiring of real runs on MongoDB (FerretDB), read back through the bridge: a nested run's spans under the
// parent's tool span with usage summed; web_search_api sources as citations; stores from MONGODB_URI; and the JSON
// errors of /sessions/:id, /runs/:id/trace and /runs/:id/citations for malformed ids and other tenants' ids.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebSearchTool } from '../../activities/tools/web-search';
import { asTool, defineAgent, type RunOutput } from '../../common';
import { MemorySessionStore, MongoSessionStore, type TraceNode } from '../../stores';
import { storesFromEnv } from '../../config/stores';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { sentToolResult } from '../helpers/agent-runs';
import { request, startBridge, type TestBridge } from '../helpers/bridge';
import { openMongoStores, type TestMongoStores } from '../helpers/mongo-stores';
import { startTestWorker, uniqueId, type TestWorker } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';

const TENANT = 'tenant-a';
const OTHER_TENANT = 'tenant-b';
const TOKEN = 'token-a';
const OTHER_TOKEN = 'token-b';
const TOKENS = `${TOKEN}:${TENANT},${OTHER_TOKEN}:${OTHER_TENANT}`;

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
    tools: testTools,
    stores: async () => (mongo = await openMongoStores()),
    bridge: { tokens: TOKENS },
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
