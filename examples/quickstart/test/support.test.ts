// The project's own test, with agio/testing: a real Temporal server (a dev server started for the test, or the one at
// AGIO_TEST_TEMPORAL_ADDRESS), a real worker with this project's agents file and tools, and a scripted model that
// answers in place of OpenAI. Runs with node's own test runner; jest and vitest work the same way.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestEnvironment, text, toolCall, toolCalls, type TestEnvironment } from 'agio/testing';
import { createService } from '../src/service.js';
import { tools } from '../src/tools.js';

let env: TestEnvironment;
before(async () => {
  env = await startTestEnvironment({ agentsFile: path.resolve('agents.yaml'), tools });
});
after(async () => env?.close());

// (The runner awaits test() itself; `void` says so to the linter.)
void test('the support agent looks the order up and answers through the service', async () => {
  env.model.script(
    toolCalls([toolCall('lookup_order', { orderId: 'A-1001' })]),
    text('Your order A-1001 has shipped and arrives on Thursday.'),
  );
  const server = createService(env.agio).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/questions`, {
      method: 'POST',
      body: JSON.stringify({ question: 'Where is my order A-1001?' }),
    });
    const body = (await res.json()) as { runId: string; answer: string };
    assert.equal(body.answer, 'Your order A-1001 has shipped and arrives on Thursday.');
    // The tool's answer reached the model.
    const toolMessages = env.model.requests[1].body.messages as { role: string; content?: string }[];
    assert.match(toolMessages.find((m) => m.role === 'tool')?.content ?? '', /shipped/);
  } finally {
    server.close();
  }
});
