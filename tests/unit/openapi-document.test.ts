// The bridge's OpenAPI 3.1 document: valid for a standard validator, covering every route Fastify registers (so a route
// added without a declaration fails here), taking requests as the routes parse them, and the committed client types
// generated from it (tests/generated/agio-api.ts) current.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { AgioClient } from '../../client/agio-client';
import { createBridge } from '../../bridge/server';
import { openApiPath } from '../../bridge/openapi';

const root = path.join(__dirname, '..', '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is JSON read by key
type Doc = any;

/** A bridge with every optional part (a codec, CORS, a built viewer), on a Temporal connection never opened. */
async function fullBridge(dir: string) {
  writeFileSync(path.join(dir, 'index.html'), '');
  const identity = { encode: async <T>(p: T) => p, decode: async <T>(p: T) => p };
  const temporal = new Client({ dataConverter: { payloadCodecs: [identity] } });
  const app = createBridge({
    agio: new AgioClient(temporal),
    tokens: new Map([['t', 'acme']]),
    viewerDir: dir,
    corsOrigins: ['http://ui.example'],
  });
  await app.ready();
  return app;
}

describe('the OpenAPI document', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agio-openapi-test-'));
  const docFile = path.join(dir, 'openapi.json');
  const typesFile = path.join(dir, 'agio-api.ts');
  let doc: Doc;
  let app: Awaited<ReturnType<typeof fullBridge>>;
  let url: string;

  beforeAll(async () => {
    // What `agio openapi` (npm run openapi) writes: the document and its openapi-typescript types.
    execFileSync(bin('tsx'), ['cli/main.ts', 'openapi', docFile, '--types', typesFile], { cwd: root });
    doc = JSON.parse(readFileSync(docFile, 'utf8'));
    app = await fullBridge(dir);
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const validate = (file: string) => {
    try {
      return JSON.parse(execFileSync(bin('validate-api'), [file], { encoding: 'utf8' }));
    } catch (err) {
      return JSON.parse((err as { stdout: string }).stdout);
    }
  };

  it('is valid OpenAPI 3.1 for @seriousme/openapi-schema-validator (and a broken one is not)', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(validate(docFile)).toEqual({ valid: true });
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, JSON.stringify({ ...doc, paths: { '/x': { get: { responses: { 200: {} } } } } }));
    expect(validate(broken).valid).toBe(false);
  });

  it('describes every route the bridge registers, and serves the same document at GET /openapi.json', async () => {
    expect(app.routeCatalog.undescribed()).toEqual([]);
    const served = await fetch(`${url}/openapi.json`);
    expect(served.status).toBe(200);
    expect(await served.json()).toEqual(doc);
    for (const { method, url } of app.routeCatalog.routes) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      expect([method, url, doc.paths[openApiPath(url)]?.[method.toLowerCase()] !== undefined]).toEqual([
        method,
        url,
        true,
      ]);
    }
    const operationIds = Object.values(doc.paths).flatMap((p) =>
      Object.values(p as Doc).map((o) => (o as Doc).operationId),
    );
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });

  it('names the bearer scope each operation needs and the error shape of each error', () => {
    const start = doc.paths['/runs'].post;
    expect(start.security).toEqual([{ bearer: ['start'] }]);
    expect(Object.keys(start.responses)).toEqual(
      expect.arrayContaining(['200', '201', '400', '401', '403', '409', '429']),
    );
    expect(start.responses['409'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(start.requestBody.content['application/json'].schema.required).toEqual(['agent', 'input']);
    expect(doc.paths['/openapi.json'].get.security).toEqual([]);
    expect(doc.paths['/runs/{id}/events'].get.security).toEqual([{ bearer: ['read'] }, { streamToken: [] }]);
    expect(Object.keys(doc.paths['/runs/{id}/events'].get.responses['200'].content)).toEqual(['text/event-stream']);
    expect(doc.paths['/runs/{id}/tool-calls/{callId}/approve'].post.parameters.map((p: Doc) => p.name)).toEqual([
      'id',
      'callId',
    ]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('takes a request exactly when the route does: the document is built from the schemas the route parses with', async () => {
    // GET /runs?limit=0: below the query's minimum in both.
    expect(doc.paths['/runs'].get.parameters.find((p: Doc) => p.name === 'limit').schema.minimum).toBe(1);
    const refused = await fetch(`${url}/runs?limit=0`, { headers: { authorization: 'Bearer t' } });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: { code: 'invalid_request', message: expect.stringMatching(/limit/) },
    });
    // Auth comes first, as before: no token is 401 even with a malformed body.
    const anonymous = await fetch(`${url}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent: '' }),
    });
    expect(anonymous.status).toBe(401);
  });

  it('has its generated client types committed and current (regenerate: npm run openapi -- --types tests/generated/agio-api.ts)', () => {
    const committed = readFileSync(path.join(root, 'tests', 'generated', 'agio-api.ts'), 'utf8');
    expect(committed).toBe(readFileSync(typesFile, 'utf8'));
  });
});
