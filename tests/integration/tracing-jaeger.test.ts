// OpenTelemetry traces received by a real Jaeger over OTLP and read back from its query API: a nested run (an agent
// tool whose child asks for an approval) started through the bridge's POST /runs inside a caller's span makes one trace
// of GenAI-convention spans; after a worker is SIGKILLed mid-run and another replays the tree, every model call still
// has exactly one span; prompts are in the spans only when the operator opts in.
import { randomBytes } from 'node:crypto';
import { AgioClient } from '../../client/agio-client';
import { asTool, defineAgent } from '../../common';
import { startJaeger, type JaegerServer, type JaegerSpan, type JaegerTrace } from '../../devkit/jaeger-server';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { traceIdOf } from '../../telemetry/tracing-spans';
import { askingAgent, keyOf, waitForAsk } from '../helpers/approvals';
import { startBridgeProcess, type BridgeProcess } from '../helpers/bridge-process';
import { useTestBed } from '../helpers/test-bed';
import { uniqueId } from '../helpers/temporal';
import { waitFor } from '../helpers/workflow-agents';
import {
  failoverWorkers,
  killWorkerProcess,
  startTestWorkerProcess,
  stopWorkerProcess,
  type WorkerProcess,
} from '../helpers/worker-process';

const helper = askingAgent('traced-helper');
const parent = defineAgent({
  name: 'traced-parent',
  instructions: 'You are traced-parent.',
  tools: [asTool(helper, { description: 'Records things.' })],
});

const tag = (span: JaegerSpan, key: string) => span.tags.find((t) => t.key === key)?.value;
const parentOf = (span: JaegerSpan) => span.references.find((r) => r.refType === 'CHILD_OF')?.spanID;
const named = (t: JaegerTrace, prefix: string) => t.spans.filter((s) => s.operationName.startsWith(prefix));
const one = (t: JaegerTrace, name: string) => {
  const spans = t.spans.filter((s) => s.operationName === name);
  expect(spans.map((s) => s.operationName)).toEqual([name]);
  return spans[0];
};

describe('OpenTelemetry traces in Jaeger', () => {
  const bed = useTestBed({ worker: false });
  const workers = failoverWorkers(afterEach);
  let replacement: WorkerProcess | undefined;
  afterEach(() => stopWorkerProcess(replacement));
  let jaeger: JaegerServer;
  let bridge: BridgeProcess;
  const taskQueue = uniqueId('traced');
  const service = uniqueId('agio-worker');
  const otel = () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint, OTEL_BSP_SCHEDULE_DELAY: '50' });

  beforeAll(async () => {
    jaeger = await startJaeger();
    bridge = await startBridgeProcess({ taskQueue, agents: [parent] }, { ...otel(), OTEL_SERVICE_NAME: 'agio-bridge' });
  });
  afterAll(async () => {
    bridge?.kill('SIGTERM');
    await bridge?.exited;
    await jaeger?.stop();
  });

  const startWorker = (capture = false) =>
    startTestWorkerProcess(
      { taskQueue, model: bed.model(), tools: ['record'] },
      {
        ...otel(),
        OTEL_SERVICE_NAME: service,
        ...(capture ? { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' } : {}),
      },
    );
  const script = () => {
    bed.server.scriptFor(
      keyOf(parent),
      toolCalls([toolCall('traced-helper', { task: 'record the secret plan' }, { id: 'call_helper' })]),
      text('parent done'),
    );
    bed.server.scriptFor(
      keyOf(helper),
      toolCalls([toolCall('record', { label: 'traced' }, { id: 'call_rec' })]),
      text('helper done'),
    );
  };
  /** The trace once it holds `count` spans (Jaeger stores what arrives a moment after it is exported). */
  const traceWith = (traceId: string, count: number) =>
    waitFor(`a trace of ${count} spans`, async () => {
      const t = await jaeger.trace(traceId);
      return t && t.spans.length >= count && t;
    });

  it('makes one trace of the nested run under the caller and POST /runs, with GenAI attributes and the approval as events', async () => {
    workers.first = await startWorker();
    script();
    // The caller is another system's span, handed over as a W3C traceparent header.
    const caller = { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') };
    const res = await fetch(`${bridge.url}/runs`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer test-token',
        traceparent: `00-${caller.traceId}-${caller.spanId}-01`,
      },
      body: JSON.stringify({ agent: 'traced-parent', input: 'go' }),
    });
    const { runId } = (await res.json()) as { runId: string };
    await waitForAsk(bed.client, runId, 'call_rec');
    const run = new AgioClient(bed.client, { taskQueue }).getHandle(runId);
    await run.approve('call_rec', { by: 'tester' });
    expect((await run.result()).response).toBe('parent done');

    const t = await traceWith(caller.traceId, 9);
    expect(t.spans).toHaveLength(9);
    const root = one(t, 'invoke_agent traced-parent');
    const server = one(t, 'POST /runs');
    const toolSpan = one(t, 'execute_tool traced-helper');
    const child = one(t, 'invoke_agent traced-helper');
    const record = one(t, 'execute_tool record');
    // caller → POST /runs → invoke_agent parent → (chat, execute_tool helper → invoke_agent helper → (chat,
    // execute_tool record))
    expect(parentOf(server)).toBe(caller.spanId);
    expect(parentOf(root)).toBe(server.spanID);
    expect(parentOf(toolSpan)).toBe(root.spanID);
    expect(parentOf(child)).toBe(toolSpan.spanID);
    expect(parentOf(record)).toBe(child.spanID);
    const chats = named(t, 'chat ');
    expect(chats.map((s) => [s.operationName, parentOf(s)]).sort()).toEqual(
      [root, root, child, child].map((p) => ['chat scripted', p.spanID]).sort(),
    );
    expect(tag(server, 'span.kind')).toBe('server');
    expect(tag(root, 'gen_ai.operation.name')).toBe('invoke_agent');
    expect(tag(root, 'gen_ai.agent.name')).toBe('traced-parent');
    expect(tag(toolSpan, 'gen_ai.tool.call.id')).toBe('call_helper');
    expect(tag(record, 'gen_ai.tool.name')).toBe('record');
    expect(tag(record, 'agio.tool.outcome')).toBe('ok');
    const chat = chats.find((s) => tag(s, 'gen_ai.response.finish_reasons') !== undefined)!;
    expect(tag(chat, 'span.kind')).toBe('client');
    expect(tag(chat, 'gen_ai.operation.name')).toBe('chat');
    expect(tag(chat, 'gen_ai.provider.name')).toBe('127.0.0.1');
    expect(tag(chat, 'gen_ai.request.model')).toBe('scripted');
    expect(typeof tag(chat, 'gen_ai.usage.input_tokens')).toBe('number');
    expect(typeof tag(chat, 'gen_ai.usage.output_tokens')).toBe('number');
    expect(typeof tag(chat, 'agio.time_to_first_token_ms')).toBe('number');
    // The approval is two events on the tool's span.
    const events = record.logs.map((l) => l.fields.find((f) => f.key === 'event')?.value);
    expect(events).toEqual(['agio.approval.required', 'agio.approval.granted']);
    expect(record.logs[1].fields).toContainEqual(expect.objectContaining({ key: 'agio.approval.by', value: 'tester' }));
    // Content capture is off: no prompt or completion anywhere.
    expect(JSON.stringify(t)).not.toContain('secret plan');
    expect(chats.some((s) => tag(s, 'gen_ai.input.messages') !== undefined)).toBe(false);
  });

  it('has exactly one span per model call after a worker is SIGKILLed and another replays the tree; prompts only when opted in', async () => {
    workers.first = await startWorker(true);
    script();
    const agio = new AgioClient(bed.client, { taskQueue });
    const run = await agio.start(parent, 'go');
    const traceId = traceIdOf(run.runId);
    await waitForAsk(bed.client, run.runId, 'call_rec');
    // Both first model calls were exported by the first worker before it dies.
    await traceWith(traceId, 2);
    await killWorkerProcess(workers.first);
    replacement = await startWorker(true);
    await run.approve('call_rec', { by: 'tester' });
    expect((await run.result()).response).toBe('parent done');

    const t = await waitFor('the root span', async () => {
      const found = await jaeger.trace(traceId);
      return found?.spans.some((s) => s.operationName === 'invoke_agent traced-parent') && found;
    });
    const chats = named(t, 'chat ');
    const steps = chats.map((s) => tag(s, 'agio.step.id'));
    expect(steps).toHaveLength(4);
    expect(new Set(steps).size).toBe(4);
    expect(named(t, 'invoke_agent ')).toHaveLength(2);
    expect(named(t, 'execute_tool ')).toHaveLength(2);
    const root = one(t, 'invoke_agent traced-parent');
    expect(parentOf(root)).toBeUndefined();
    // The second worker saw only the runs' ends: their spans start when the runs did, before their first model call.
    for (const run of named(t, 'invoke_agent ')) {
      const first = Math.min(...chats.filter((c) => parentOf(c) === run.spanID).map((c) => c.startTime));
      expect(run.startTime).toBeLessThanOrEqual(first);
    }
    expect(parentOf(one(t, 'invoke_agent traced-helper'))).toBe(one(t, 'execute_tool traced-helper').spanID);
    // Opted in: the helper's first call carries its task, and answers are in the output messages.
    const inputs = chats.map((s) => String(tag(s, 'gen_ai.input.messages')));
    expect(inputs.some((m) => m.includes('record the secret plan'))).toBe(true);
    expect(chats.some((s) => String(tag(s, 'gen_ai.output.messages')).includes('parent done'))).toBe(true);
  });
});
