// The project's own test, with agio/testing: a real Temporal server (a dev server started for the test, or the one at
// AGIO_TEST_TEMPORAL_ADDRESS), a real worker with this project's agents file and tools, and a scripted model that
// answers in place of OpenAI. Runs with node's own test runner; jest and vitest work the same way.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Server } from 'node:http';
import { after, before, test } from 'node:test';
import { startTestEnvironment, text, toolCall, toolCalls, type TestEnvironment } from 'agio/testing';
import { createService } from '../src/service.js';
import { tools } from '../src/tools.js';

let env: TestEnvironment;
let server: Server;
let service: string;
before(async () => {
  env = await startTestEnvironment({ agentsFile: path.resolve('agents.yaml'), tools });
  server = createService(env.agio).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  service = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server?.close();
  await env?.close();
});

const ask = async (route: string, body?: unknown) =>
  fetch(`${service}${route}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });

// (The runner awaits test() itself; `void` says so to the linter.)
void test('the support agent looks the order up and answers through the service', async () => {
  env.model.script(
    toolCalls([toolCall('lookup_order', { orderId: 'A-1001' })]),
    text('Your order A-1001 has shipped and arrives on Thursday.'),
  );
  const res = await ask('/questions', { question: 'Where is my order A-1001?' });
  const { answer } = (await res.json()) as { runId: string; answer: string };
  assert.equal(answer, 'Your order A-1001 has shipped and arrives on Thursday.');
  // The tool's answer reached the model.
  const messages = env.model.requests[1].body.messages as { role: string; content?: string }[];
  assert.match(messages.find((m) => m.role === 'tool')?.content ?? '', /shipped/);
});

void test('a run started without waiting: its answer, state and events', async () => {
  env.model.script(text('Which order do you mean?'));
  const { runId } = (await (await ask('/questions?wait=false', { question: 'Where is my order?' })).json()) as {
    runId: string;
  };
  assert.deepEqual(await (await ask(`/questions/${runId}/answer`)).json(), { answer: 'Which order do you mean?' });
  assert.equal(((await (await ask(`/questions/${runId}`)).json()) as { status: string }).status, 'completed');
  const events = (await (await ask(`/questions/${runId}/events`)).text()).trim().split('\n');
  assert.deepEqual(
    events.map((line) => (JSON.parse(line) as { type: string }).type).filter((type) => type.startsWith('RUN_')),
    ['RUN_STARTED', 'RUN_COMPLETED'],
  );
  // A finished run cannot be paused: the service answers 409 (RunClosedError).
  assert.equal((await ask(`/questions/${runId}/pause`, {})).status, 409);
});
