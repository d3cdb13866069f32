// GET /runs/compare on a real worker and bridge, `agio compare`, and the viewer's compare page in Chromium: two runs of
// one agent whose model chose other tool arguments diverge at that step; a failed run shows its error beside a
// completed one's output; another tenant's run is not found, a malformed id refused. Screenshot:
// test-results/viewer/compare.png.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { defineAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { request } from '../helpers/bridge';
import { screenshot, useBrowserPages } from '../helpers/browser';
import { useTestBed } from '../helpers/test-bed';

const ALICE = 'compare-alice';
const BOB = 'compare-bob';

describe('comparing two runs', () => {
  const agent = defineAgent({ name: 'compared', instructions: 'You are compared.', tools: ['echo'] });
  const bed = useTestBed({
    tools: testTools,
    agents: [agent],
    bridge: { tokens: `${ALICE}:acme:alice,${BOB}:beta:bob` },
  });
  const browser = useBrowserPages(({ origins }) => expect([...origins]).toEqual([bed.bridge.url]));
  const compare = (a: string, b: string, token = ALICE) =>
    request(`${bed.bridge.url}/runs/compare?${new URLSearchParams({ a, b }).toString()}`, { token });

  /** A run that echoes `word` and answers `answer` (its model reports `tokens` tokens per call). */
  async function finishedRun(word: string, answer: string, tokens: number): Promise<string> {
    const usage = { prompt_tokens: tokens, completion_tokens: 0 };
    bed.server.script(toolCalls([toolCall('echo', { text: word })], { usage }), text(answer, { usage }));
    const run = await bed.agio.start(agent, 'say something', { tenant: 'acme' });
    await run.result();
    return run.runId;
  }

  it('shows where two runs diverge, their steps, tool calls, outputs, tokens and time, over HTTP and in the viewer', async () => {
    const a = await finishedRun('one', 'said one', 10);
    const b = await finishedRun('two', 'said two', 30);
    const { status, body } = await compare(a, b);
    expect(status).toBe(200);
    expect(body.a).toMatchObject({ runId: a, agent: 'compared', status: 'completed', steps: 5, toolCalls: 1 });
    expect(body.a.output).toBe('said one');
    expect(body.b.output).toBe('said two');
    expect(body.a.durationMs).toBeGreaterThan(0);
    expect(body.divergence).toMatchObject({ index: 2, reason: 'tool_calls' });
    expect(body.divergence.b.toolCalls).toEqual([{ name: 'echo', arguments: '{"text":"two"}' }]);
    expect(body.steps.map((s: { same: boolean }) => s.same)).toEqual([true, true, false, false, false]);
    expect(body.delta).toMatchObject({ steps: 0, toolCalls: 0, totalTokens: 40 });

    // The CLI says the same.
    const env = { ...process.env, AGIO_URL: bed.bridge.url, AGIO_TOKEN: ALICE };
    const root = path.resolve(__dirname, '../..');
    const cli = await promisify(execFile)(path.join(root, 'node_modules/.bin/tsx'), ['cli/main.ts', 'compare', a, b], {
      cwd: root,
      env,
    });
    expect(cli.stdout).toMatch(/^A run-.*completed: 5 steps, 1 tool calls, 20 tokens/m);
    expect(cli.stdout).toMatch(/^diverge at step 2 \(tool_calls\)$/m);

    const { page } = await browser.signedIn(`${bed.bridge.url}/ui/compare?a=${a}&b=${b}`, ALICE);
    await page.getByTestId('compare-table').waitFor();
    expect(await page.getByTestId('compare-divergence').innerText()).toMatch(/diverge at step 2 \(tool calls\)/);
    expect(await page.getByTestId('divergence-row').innerText()).toMatch(/"one"[\s\S]*"two"/);
    expect(await page.locator('[data-testid=compare-run-B] [data-testid=compare-output]').innerText()).toBe('said two');
    await screenshot(page, 'compare');
  });

  it("shows a failed run's error beside a completed run's output, and hides other tenants' runs", async () => {
    const done = await finishedRun('one', 'said one', 10);
    bed.server.script(toolCalls([toolCall('echo', { text: 'one' })]), { error: { status: 400 } });
    const failing = await bed.agio.start(agent, 'say something', { tenant: 'acme' });
    await expect(failing.result()).rejects.toThrow();
    const { body } = await compare(done, failing.runId);
    expect(body.b).toMatchObject({ status: 'failed', steps: 4, error: { type: expect.any(String) } });
    expect(body.b.output).toBeUndefined();
    expect(body.divergence).toMatchObject({ index: 4, reason: 'missing' });

    expect((await compare(done, failing.runId, BOB)).status).toBe(404);
    expect((await compare(done, 'run-nobody', ALICE)).status).toBe(404);
    expect((await compare(done, 'bad id!', ALICE)).status).toBe(400);
    expect((await request(`${bed.bridge.url}/runs/compare?a=${done}`, { token: ALICE })).status).toBe(400);
  });
});
