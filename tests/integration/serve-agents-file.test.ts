// `agio serve --agents FILE` as a user runs it (what `./scripts/serve --agents FILE` runs): agents of their own from a
// YAML file — three levels of agents used as tools, a parallel agent, a real MCP server from the registry, a
// structured-output agent and a schedule — driven over HTTP with a repeated Idempotency-Key, against the scripted model
// server.
// A broken file stops serve before it starts anything, naming the file, the line and the problem.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgioEvent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { startServe, type ServeProcess } from '../helpers/serve-process';
import { agioEvents, readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';

const EVERYTHING = path.resolve('node_modules/.bin/mcp-server-everything');
const AGENTS = `
mcpServers:
  - { name: everything, transport: stdio, command: ${JSON.stringify(EVERYTHING)}, args: [stdio], tools: [echo] }
agents:
  - name: director
    instructions: ROLE-director
    tools: [{ agent: manager, description: Manages the work. }]
  - name: manager
    instructions: ROLE-manager
    tools: [{ agent: engineer, description: Does the work. }]
  - name: engineer
    instructions: ROLE-engineer
    tools: ["mcp:everything"]
  - name: fanout
    kind: parallel
    subAgents: [engineer, { name: reviewer, instructions: ROLE-reviewer }]
  - name: invoice
    instructions: ROLE-invoice
    outputSchema:
      type: object
      properties: { total: { type: number }, currency: { type: string } }
      required: [total, currency]
      additionalProperties: false
schedules:
  - { id: nightly, agent: director, input: Report on the night, cron: "0 2 * * *", paused: true }
`;

describe('agio serve --agents FILE', () => {
  jest.setTimeout(240_000);
  const bed = useTestBed({ worker: false });
  let serve: ServeProcess;
  let dir: string;
  let url: string;
  const headers = { authorization: 'Bearer dev-token', 'content-type': 'application/json' };
  const post = (body: unknown, extra: Record<string, string> = {}) =>
    fetch(`${url}/runs`, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
  const get = async (route: string) =>
    (await fetch(`${url}${route}`, { headers })).json() as Promise<Record<string, unknown>>;
  const stream = async (runId: string): Promise<AgioEvent[]> =>
    agioEvents((await readSse(`${url}/runs/${runId}/events`, { token: 'dev-token', timeoutMs: 60_000 })).events);

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agio-serve-agents-'));
    fs.writeFileSync(path.join(dir, 'agents.yaml'), AGENTS);
    serve = await startServe(path.join(dir, 'data'), 0, {
      args: ['--agents', path.join(dir, 'agents.yaml')],
      env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: bed.server.baseURL, AGIO_MODEL: 'scripted' },
    });
    url = serve.url;
  });

  afterAll(async () => {
    if (serve && serve.child.exitCode === null) {
      serve.child.kill('SIGINT');
      await serve.exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves the agents of the file and shows at GET /agents what it loaded, nested agents included', async () => {
    expect(serve.output()).toContain(`agents     ${path.join(dir, 'agents.yaml')}`);
    // Its hint names an agent the file has (the examples' `assistant` is not there).
    expect(serve.output()).toContain(`-d '{"agent":"director","input":"hello"}'`);
    const listed = (await get('/agents')) as {
      source: string;
      agents: {
        name: string;
        kind: string;
        tools?: unknown[];
        subAgents?: { name: string }[];
        outputSchema?: unknown;
      }[];
    };
    // The file by its name: GET /agents shows no path of the bridge's machine.
    expect(listed.source).toBe('agents.yaml');
    expect(listed.agents.map((a) => a.name)).toEqual(['director', 'manager', 'engineer', 'fanout', 'invoice']);
    expect(listed.agents[0].tools).toEqual([
      expect.objectContaining({
        name: 'manager',
        agent: expect.objectContaining({
          tools: [
            expect.objectContaining({
              name: 'engineer',
              agent: expect.objectContaining({ tools: ['mcp:everything'] }),
            }),
          ],
        }),
      }),
    ]);
    expect(listed.agents[3]).toMatchObject({
      kind: 'parallel',
      subAgents: [{ name: 'engineer' }, { name: 'reviewer' }],
    });
    expect(listed.agents[4].outputSchema).toMatchObject({ required: ['total', 'currency'] });
  });

  it("creates the file's schedules at start, marked as the file's", async () => {
    expect(serve.output()).toContain('agio: schedules default/nightly (created)');
    expect(await get('/schedules/nightly')).toMatchObject({
      id: 'nightly',
      agent: 'director',
      cron: ['0 2 * * *'],
      paused: true,
      source: 'agents-file',
    });
  });

  it('runs three levels of agents used as tools down to an MCP tool, once for a repeated Idempotency-Key', async () => {
    bed.server.scriptFor('ROLE-director', toolCalls([toolCall('manager', { task: 'Get it done.' })]), text('directed'));
    bed.server.scriptFor('ROLE-manager', toolCalls([toolCall('engineer', { task: 'Do it.' })]), text('managed'));
    bed.server.scriptFor(
      'ROLE-engineer',
      toolCalls([toolCall('everything__echo', { message: 'from three levels down' }, { id: 'call_echo' })]),
      text('engineered'),
    );

    const first = await post({ agent: 'director', input: 'Ship it.' }, { 'idempotency-key': 'ship-1' });
    expect(first.status).toBe(201);
    const { runId } = (await first.json()) as { runId: string };
    const again = await post({ agent: 'director', input: 'Ship it.' }, { 'idempotency-key': 'ship-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as { runId: string }).runId).toBe(runId);
    expect(
      (await post({ agent: 'director', input: 'Ship something else.' }, { 'idempotency-key': 'ship-1' })).status,
    ).toBe(409);

    const events = await stream(runId);
    expect(events.filter((e) => e.type === 'RUN_STARTED').map((e) => [e.agent, e.depth])).toEqual([
      ['director', 0],
      ['manager', 1],
      ['engineer', 2],
    ]);
    const echoed = events.find((e) => e.type === 'STEP_COMPLETED' && e.snapshot?.toolCallId === 'call_echo');
    expect(echoed).toMatchObject({
      depth: 2,
      agent: 'engineer',
      snapshot: { role: 'tool', content: 'Echo: from three levels down' },
    });
    expect(await get(`/runs/${runId}`)).toMatchObject({ status: 'completed', output: { response: 'directed' } });
    // One run, one set of model calls: the repeats started nothing.
    expect(bed.server.requests.filter((r) => JSON.stringify(r.body.messages).includes('ROLE-director'))).toHaveLength(
      2,
    );
  });

  it('runs a parallel agent over a named and an inline sub-agent', async () => {
    bed.server.scriptFor('ROLE-engineer', text('engineered in parallel'));
    bed.server.scriptFor('ROLE-reviewer', text('reviewed'));
    const { runId } = (await (await post({ agent: 'fanout', input: 'Both of you.' })).json()) as { runId: string };
    const events = await stream(runId);
    expect(
      events
        .filter((e) => e.type === 'RUN_COMPLETED' && e.depth === 1)
        .map((e) => e.agent)
        .sort(),
    ).toEqual(['engineer', 'reviewer']);
    expect(await get(`/runs/${runId}`)).toMatchObject({ status: 'completed' });
  });

  it("returns a structured-output agent's answer parsed, checked against the file's JSON Schema", async () => {
    bed.server.scriptFor('ROLE-invoice', text('{"total": "lots"}'), text('{"total": 42.5, "currency": "EUR"}'));
    const { runId } = (await (await post({ agent: 'invoice', input: 'Total of: 40 + 2.5 EUR' })).json()) as {
      runId: string;
    };
    await stream(runId);
    expect(await get(`/runs/${runId}`)).toMatchObject({
      status: 'completed',
      output: { output: { total: 42.5, currency: 'EUR' } },
    });
    // The first answer was off the schema: the second call was the repair turn, and both asked for the schema.
    const calls = bed.server.requests.filter((r) => JSON.stringify(r.body.messages).includes('ROLE-invoice'));
    expect(calls).toHaveLength(2);
    expect(calls[0].body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { schema: { required: ['total', 'currency'] } },
    });
  });

  it('stops before starting anything when the file is wrong, naming the file, the line and the problem', async () => {
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'agents:\n  - name: lead\n    tools:\n      - agent: ghost\n        description: Nobody.\n');
    const broken = await startServe(path.join(dir, 'bad-data'), 0, { args: ['--agents', bad], until: 'agents file' });
    expect(await broken.exited).toBe(1);
    expect(broken.output()).toContain(`agents file ${bad}:`);
    expect(broken.output()).toContain(
      'line 4: agents[0].tools[0].agent: unknown agent "ghost"; the file defines: lead',
    );
    expect(broken.output()).not.toContain('starting the Temporal dev server');
  });
});
