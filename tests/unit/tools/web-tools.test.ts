// The web tools against local imitations of the Serper search API and the Jina Reader API.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebReaderTool, webReaderTool } from '../../../activities/tools/web-reader';
import { createWebSearchTool, webSearchTool } from '../../../activities/tools/web-search';
import { callTool, makeToolContext, type TestToolContext } from '../../helpers/tool-context';

interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
type Reply = { status: number; body: string; type?: string };

/** A local HTTP server answering every request with `reply(request)` and recording the requests. */
async function startServer(reply: (req: Recorded) => Reply) {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const rec = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(rec);
      const r = reply(rec);
      res.writeHead(r.status, { 'Content-Type': r.type ?? 'application/json' }).end(r.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const serperBody = JSON.stringify({
  searchParameters: { q: 'temporal durable execution' },
  organic: [
    { title: 'Temporal', link: 'https://temporal.io/', snippet: 'Durable execution platform.', position: 1 },
    { title: 'Docs', link: 'https://docs.temporal.io/', snippet: 'Temporal documentation.', position: 2 },
  ],
});

let t: TestToolContext;
let server: Awaited<ReturnType<typeof startServer>>;
let reply: (req: Recorded) => Reply;
beforeAll(async () => {
  server = await startServer((req) => reply(req));
});
afterAll(() => server.close());
beforeEach(async () => {
  t = await makeToolContext();
  server.requests.length = 0;
});
afterEach(() => t.cleanup());

describe('web_search_api', () => {
  test('POSTs { q, num } with the X-API-KEY header and returns titles, links, snippets and sources', async () => {
    reply = () => ({ status: 200, body: serperBody });
    const tool = createWebSearchTool({ endpoint: `${server.url}/search`, apiKey: 'key-123' });
    const out = await callTool(tool, { query: 'temporal durable execution', num: 5 }, t.ctx);

    expect(server.requests).toHaveLength(1);
    const req = server.requests[0];
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/search');
    expect(req.headers['x-api-key']).toBe('key-123');
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({ q: 'temporal durable execution', num: 5 });

    expect(out.isError).toBeFalsy();
    expect(out.content).toContain('1. Temporal\n   https://temporal.io/\n   Durable execution platform.');
    expect(out.content).toContain('2. Docs\n   https://docs.temporal.io/\n   Temporal documentation.');
    expect(out.metadata).toEqual({
      sources: [
        { url: 'https://temporal.io/', title: 'Temporal', snippet: 'Durable execution platform.' },
        { url: 'https://docs.temporal.io/', title: 'Docs', snippet: 'Temporal documentation.' },
      ],
    });
  });

  test('a non-2xx response is an error result with the status and a body excerpt', async () => {
    reply = () => ({ status: 403, body: '{"message":"Unauthorized."}' });
    const tool = createWebSearchTool({ endpoint: `${server.url}/search`, apiKey: 'bad' });
    const out = await callTool(tool, { query: 'x' }, t.ctx);
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/HTTP 403/);
    expect(out.content).toContain('Unauthorized.');
  });

  test('the default instance reads SERPER_API_URL and SERPER_API_KEY at call time', async () => {
    reply = () => ({ status: 200, body: JSON.stringify({ organic: [] }) });
    const saved = { url: process.env.SERPER_API_URL, key: process.env.SERPER_API_KEY };
    try {
      delete process.env.SERPER_API_KEY;
      await expect(callTool(webSearchTool, { query: 'x' }, t.ctx)).rejects.toThrow(/SERPER_API_KEY/);
      process.env.SERPER_API_URL = `${server.url}/env-search`;
      process.env.SERPER_API_KEY = 'env-key';
      const out = await callTool(webSearchTool, { query: 'nothing' }, t.ctx);
      expect(out.content).toBe('No results for "nothing".');
      expect(server.requests[0].url).toBe('/env-search');
      expect(server.requests[0].headers['x-api-key']).toBe('env-key');
      expect(JSON.parse(server.requests[0].body)).toEqual({ q: 'nothing', num: 10 });
    } finally {
      for (const [k, v] of [
        ['SERPER_API_URL', saved.url],
        ['SERPER_API_KEY', saved.key],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});

describe('web_reader_api', () => {
  const page =
    'Title: Example Domain\nURL Source: https://example.com/page\n\nMarkdown Content:\nThis domain is for examples.';

  test('GETs <endpoint>/<url> with the bearer key and returns the text with sources', async () => {
    reply = () => ({ status: 200, body: page, type: 'text/plain' });
    const tool = createWebReaderTool({ endpoint: `${server.url}/`, apiKey: 'jina-key' });
    const out = await callTool(tool, { url: 'https://example.com/page?a=1' }, t.ctx);
    const req = server.requests[0];
    expect(req.method).toBe('GET');
    expect(req.url).toBe('/https://example.com/page?a=1');
    expect(req.headers.authorization).toBe('Bearer jina-key');
    expect(out.isError).toBeFalsy();
    expect(out.content).toBe(page);
    expect(out.metadata).toMatchObject({ sources: [{ url: 'https://example.com/page?a=1', title: 'Example Domain' }] });
  });

  test('caps the text at 64 KB with a marker', async () => {
    reply = () => ({ status: 200, body: 'b'.repeat(100_000), type: 'text/plain' });
    const out = await callTool(createWebReaderTool({ endpoint: server.url }), { url: 'https://example.com/' }, t.ctx);
    expect(out.content.startsWith('b'.repeat(64 * 1024))).toBe(true);
    expect(out.content).toMatch(new RegExp(`\\[… ${100_000 - 64 * 1024} bytes truncated …\\]$`));
    expect(server.requests[0].headers.authorization).toBeUndefined();
  });

  test('a non-2xx response is an error result with the status and a body excerpt', async () => {
    reply = () => ({ status: 502, body: 'upstream failed', type: 'text/plain' });
    const out = await callTool(createWebReaderTool({ endpoint: server.url }), { url: 'https://example.com/' }, t.ctx);
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/HTTP 502.*upstream failed/);
  });

  test('refuses URLs that are not http(s)', async () => {
    await expect(callTool(webReaderTool, { url: 'file:///etc/passwd' }, t.ctx)).rejects.toThrow(/Only http and https/);
    await expect(callTool(webReaderTool, { url: 'not a url' }, t.ctx)).rejects.toThrow(/not a valid URL/);
    expect(server.requests).toHaveLength(0);
  });
});
