// Callback tools declared in an agents file (docs/ARCHITECTURE.md, "Callback tools"): the file's HTTP request starts
// the work at a real receiver with the call's Idempotency-Key and the callback URL in its body; a 5xx is retried with
// the same key, a 4xx is an error the model reads, and an argument that would inject a header sends nothing.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentSpec } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { httpCallbackTool } from '../../activities/callbacks/http-callback-tool';
import { parseAgentsFile } from '../../worker/agents-file';
import { sentToolResult } from '../helpers/agent-runs';
import { request } from '../helpers/bridge';
import { callbackBedOptions, waitForCallback } from '../helpers/callbacks';
import { readStream, requestsOf } from '../helpers/nested-runs';
import { useTestBed, type TestBed } from '../helpers/test-bed';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: { ref?: string; callback?: string; call?: string };
}

/** A CI system: records each request and answers the next scripted status (202 when none is left). */
const received: Received[] = [];
const answers: { status: number; body?: string }[] = [];
const receiver = http.createServer((req, res) => {
  let raw = '';
  req.setEncoding('utf8').on('data', (d: string) => (raw += d));
  req.on('end', () => {
    received.push({ method: req.method!, url: req.url!, headers: req.headers, body: JSON.parse(raw || '{}') });
    const next = answers.shift() ?? { status: 202 };
    res.writeHead(next.status, { 'content-type': 'text/plain' }).end(next.body ?? 'accepted');
  });
});

const FILE = (port: number) => `
agents:
  - name: ci-runner
    instructions: You are ci-runner.
    tools: [run_ci]
callbackTools:
  - name: run_ci
    description: Runs the CI pipeline of a ref; the result comes back when it has finished.
    waitTimeoutMs: 30000
    parameters:
      type: object
      properties: { ref: { type: string }, label: { type: string } }
      required: [ref]
    start:
      url: http://127.0.0.1:${port}/api/pipelines?ref={{args.ref}}
      headers: { authorization: 'Bearer \${CI_TOKEN}', x-label: '{{args.label}}' }
      body: { ref: '{{args.ref}}', callback: '{{callback.url}}', call: '{{toolCallId}}' }
`;

let agent: AgentSpec;
const tools = () => {
  const loaded = parseAgentsFile(FILE((receiver.address() as AddressInfo).port), '/x/agents.yaml', {
    CI_TOKEN: 'ci-secret',
  });
  agent = loaded.agents[0] as AgentSpec;
  return loaded.callbackTools.map(httpCallbackTool);
};

describe('callback tools from an agents file', () => {
  beforeAll(() => new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve)));
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  // The receiver's port is known once it listens (the beforeAll above): the test bed reads its tools after that.
  const options = callbackBedOptions(() => live);
  const live: TestBed = useTestBed({
    ...options,
    get tools() {
      return [...(options.tools ?? []), ...tools()];
    },
  });
  beforeEach(() => {
    received.length = 0;
    answers.length = 0;
  });

  it('starts the work with its request (retried with the same key after a 5xx) and takes the result sent back', async () => {
    answers.push({ status: 503, body: 'busy' });
    live.server.scriptFor(
      'You are ci-runner.',
      toolCalls([toolCall('run_ci', { ref: 'main&x=1', label: 'nightly' }, { id: 'call_ci' })]),
      text('CI passed'),
    );
    const run = await live.bridge.agio.start(agent, 'run CI');
    await waitForCallback(live.client, run.runId, 'call_ci');
    expect(received).toHaveLength(2);
    for (const r of received) {
      expect(r.method).toBe('POST');
      expect(r.url).toBe('/api/pipelines?ref=main%26x%3D1');
      expect(r.headers).toMatchObject({ authorization: 'Bearer ci-secret', 'x-label': 'nightly' });
      expect(r.body).toMatchObject({ ref: 'main&x=1', call: 'call_ci' });
    }
    expect(received[0].headers['idempotency-key']).toBe(received[1].headers['idempotency-key']);
    const url = received[1].body.callback!;
    expect(url.startsWith(`${live.bridge.url}/callbacks/`)).toBe(true);
    expect((await request(url, { body: { result: { passed: 128, failed: 0 } } })).status).toBe(200);
    expect((await run.result()).response).toBe('CI passed');
    expect(sentToolResult(requestsOf(live.server, 'You are ci-runner.')[1], 'call_ci')).toBe(
      '{"passed":128,"failed":0}',
    );
  });

  it('tells the model when the start is refused, and sends nothing for an argument that would inject a header', async () => {
    answers.push({ status: 403, body: 'forbidden: the CI quota is spent' });
    live.server.scriptFor(
      'You are ci-runner.',
      toolCalls([toolCall('run_ci', { ref: 'main' }, { id: 'call_refused' })]),
      toolCalls([toolCall('run_ci', { ref: 'main', label: 'x\r\nx-admin: yes' }, { id: 'call_inject' })]),
      text('could not run CI'),
    );
    const run = await live.bridge.agio.start(agent, 'run CI');
    await run.result();
    const [, second, third] = requestsOf(live.server, 'You are ci-runner.');
    expect(sentToolResult(second, 'call_refused')).toBe(
      'Error: the work was not started: its start request answered HTTP 403: forbidden: the CI quota is spent',
    );
    expect(sentToolResult(third, 'call_inject')).toMatch(
      /^Error: the value of header "x-label" would hold a line break/,
    );
    expect(received).toHaveLength(1);
    const events = await readStream(live.client, run.runId);
    expect(events.filter((e) => e.type === 'TOOL_CALLBACK_WAITING')).toEqual([]);
  });
});
