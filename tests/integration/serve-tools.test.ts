// `agio serve --tools FILE` as a user runs it: an agent of the user's agents file calls the user's own tools, from a
// TypeScript module given with --tools and from a CommonJS and an ES module the file's `tools:` names (relative to the
// file). An agents file naming a tool no worker has is refused before anything starts, with the file and the line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AgioEvent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { DEV_TOKEN, curlStartRun, startServe, type ServeProcess } from '../helpers/serve-process';
import { agioEvents, readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';

const USER_TOOLS = path.resolve(__dirname, '../fixtures/user-tools.ts');
// A plain CommonJS module exporting an array, as a JavaScript project would write it.
const JS_TOOLS = `const { z } = require(${JSON.stringify(require.resolve('zod'))});
module.exports = [{
  name: 'refund_policy',
  description: 'How refunds work.',
  parameters: z.object({}),
  workspace: 'none',
  execute: async () => 'refunds within 30 days (from the tools: module)',
}];
`;
// An ES module with top-level await, as an ESM project would write it.
const ESM_TOOLS = `import { z } from ${JSON.stringify(pathToFileURL(require.resolve('zod')).href)};
const days = await Promise.resolve(14);
export const returnWindow = {
  name: 'return_window',
  description: 'How long returns are accepted.',
  parameters: z.object({}),
  workspace: 'none',
  execute: async () => \`returns within \${days} days (from an ES module)\`,
};
`;
const AGENTS = `tools: [./js-tools.cjs, ./esm-tools.mjs]
agents:
  - name: support
    instructions: ROLE-support
    tools: [order_status, refund_policy, return_window]
`;

describe('agio serve --tools FILE', () => {
  jest.setTimeout(180_000);
  const bed = useTestBed({ worker: false });
  let serve: ServeProcess | undefined;
  let dir: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agio-serve-tools-'));
    fs.writeFileSync(path.join(dir, 'js-tools.cjs'), JS_TOOLS);
    fs.writeFileSync(path.join(dir, 'esm-tools.mjs'), ESM_TOOLS);
    fs.writeFileSync(path.join(dir, 'agents.yaml'), AGENTS);
  });
  afterAll(async () => {
    if (serve?.child.exitCode === null) {
      serve.child.kill('SIGINT');
      await serve.exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("runs an agent of the user's file with the user's own tools", async () => {
    serve = await startServe(path.join(dir, 'data'), 0, {
      args: ['--agents', path.join(dir, 'agents.yaml'), '--tools', USER_TOOLS],
      env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: bed.server.baseURL, AGIO_MODEL: 'scripted' },
    });
    expect(serve.output()).toContain('tools      order_status, refund_policy, return_window (your own)');
    bed.server.scriptFor(
      'ROLE-support',
      toolCalls([
        toolCall('order_status', { orderId: 'A-17' }, { id: 'call_status' }),
        toolCall('refund_policy', {}, { id: 'call_refund' }),
        toolCall('return_window', {}, { id: 'call_return' }),
      ]),
      text('Shipped; refunds within 30 days.'),
    );
    const started = curlStartRun(serve.url, { agent: 'support', input: 'Where is order A-17?' });
    const events: AgioEvent[] = agioEvents(
      (await readSse(`${serve.url}/runs/${started.runId}/events`, { token: DEV_TOKEN, timeoutMs: 60_000 })).events,
    );
    const toolResult = (id: string) =>
      events.find((e) => e.type === 'STEP_COMPLETED' && e.snapshot?.toolCallId === id)?.snapshot?.content;
    expect(toolResult('call_status')).toBe("order A-17: shipped on 2026-11-20 (from the user's own tool)");
    expect(toolResult('call_refund')).toBe('refunds within 30 days (from the tools: module)');
    expect(toolResult('call_return')).toBe('returns within 14 days (from an ES module)');
    expect(events.at(-1)).toMatchObject({ type: 'RUN_COMPLETED' });
    // The model was offered exactly the agent's three tools, with the schema made from the user's zod parameters.
    const offered = bed.server.requests[0].body.tools as { function: { name: string; parameters: unknown } }[];
    expect(offered.map((t) => t.function.name)).toEqual(['order_status', 'refund_policy', 'return_window']);
    expect(offered[0].function.parameters).toMatchObject({ properties: { orderId: { type: 'string' } } });
  });

  it('refuses an agents file naming a tool no worker has, with the file and line, before starting anything', async () => {
    const bad = path.join(dir, 'typo.yaml');
    fs.writeFileSync(bad, 'agents:\n  - name: support\n    tools:\n      - file_read\n      - order_stauts\n');
    const dataDir = path.join(dir, 'typo-data');
    const refused = await startServe(dataDir, 0, {
      args: ['--agents', bad, '--tools', USER_TOOLS],
      until: 'agents file',
    });
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain(`agents file ${bad}:`);
    expect(refused.output()).toContain(
      'line 5: agents[0].tools[1]: agent "support" names a tool no worker here has: "order_stauts"; the worker has ',
    );
    // The user's tools count as the worker's: order_status is among those offered instead.
    expect(refused.output()).toMatch(/the worker has [^\n]*order_status/);
    expect(refused.output()).not.toContain('starting the Temporal dev server');
    expect(fs.existsSync(dataDir)).toBe(false);
  });
});
