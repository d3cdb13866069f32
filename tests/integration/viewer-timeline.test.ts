// The run viewer's timeline in headless Chromium against a real bridge, worker and dev server: a nested run (an agent
// used as a tool whose call waits for an approval, then a slow tool the run is paused during) drawn as lanes and bars
// with their costs, driven from the keyboard, saved as docs/images/timeline.png; and the time to draw a run of 500
// steps (printed, not asserted).
import type { Page } from 'playwright-core';
import path from 'node:path';
import { asTool, defineAgent, type WireEvent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { InProcessLane } from '../../live/in-process-lane';
import { testTools } from '../fixtures/test-tools';
import { signInByLink, useBrowserPages } from '../helpers/browser';
import { request } from '../helpers/bridge';
import { useTestBed } from '../helpers/test-bed';

const TOKEN = 'a-token';
const lane = new InProcessLane();
const researcher = defineAgent({
  name: 'researcher',
  model: 'gpt-4o-mini',
  instructions: 'You research.',
  tools: ['record'],
  permissions: [{ tool: 'record', action: 'ask' }],
});
const planner = defineAgent({
  name: 'planner',
  model: 'gpt-4o-mini',
  instructions: 'You plan.',
  tools: [asTool(researcher, { description: 'Researches a question.' }), 'record'],
});
/** What the scripted model reports per call: gpt-4o-mini prices it at $0.00036. */
const usage = { prompt_tokens: 1200, completion_tokens: 300 };
const PER_CALL_USD = (1200 * 0.15 + 300 * 0.6) / 1e6;
const SCREENSHOT = path.resolve(__dirname, '../../docs/images/timeline.png');

describe('the run viewer timeline in Chromium', () => {
  const bed = useTestBed({
    tools: testTools,
    agents: [planner, researcher],
    workerOptions: { liveLane: lane },
    bridge: { liveLane: lane, tokens: `${TOKEN}:tenant-a` },
  });
  const browser = useBrowserPages();
  const open = async (runPath: string): Promise<Page> => {
    const { page } = await browser.open();
    await signInByLink(page, `${bed.bridge.url}${runPath}#token=${TOKEN}`);
    return page;
  };
  const bars = (page: Page, agent: string, kind: string) =>
    page.locator(`[data-testid=timeline-lane][data-agent=${agent}] [data-testid=timeline-bar][data-kind=${kind}]`);

  it('draws a nested run with its approval wait, a pause and costs, and follows the keyboard', async () => {
    bed.server.script(
      toolCalls([toolCall('researcher', { task: 'find the sources' })], { usage, delayMs: 40 }),
      toolCalls([toolCall('record', { label: 'sources', ms: 300 })], { usage, delayMs: 40 }),
      text('three sources found', { usage, chunkSize: 4, delayMs: 15 }),
      toolCalls([toolCall('record', { label: 'plan', ms: 2500 })], { usage, delayMs: 40 }),
      text('The plan is ready.', { usage, chunkSize: 4, delayMs: 15 }),
    );
    const started = await request(`${bed.bridge.url}/runs`, {
      token: TOKEN,
      body: { agent: 'planner', input: 'plan the release' },
    });
    const runId = started.body.runId as string;
    const page = await open(`/ui/runs/${encodeURIComponent(runId)}?view=timeline`);
    await page.getByTestId('timeline').waitFor();
    // The researcher's call waits for a person: its approval bar grows live, then the call runs once approved.
    await bars(page, 'researcher', 'approval').and(page.locator('[data-status=waiting]')).waitFor();
    await page.waitForTimeout(600);
    await page.getByTestId('approval').getByTestId('approve').click();
    // Paused during the planner's slow tool call, resumed after a while.
    await bars(page, 'planner', 'tool').and(page.locator('[data-status=running]')).waitFor();
    await page.getByTestId('pause').click();
    await bars(page, 'planner', 'pause').waitFor();
    await page.waitForTimeout(800);
    await page.getByTestId('resume').click();
    await page.locator('[data-testid=run-status]:text("completed")').waitFor();
    await bars(page, 'planner', 'pause').and(page.locator('[data-status=ok]')).waitFor();

    const lanes = page.getByTestId('timeline-lane');
    expect(
      await lanes.evaluateAll((ls) => ls.map((l) => `${l.getAttribute('data-agent')}@${l.dataset.depth}`)),
    ).toEqual(['planner@0', 'researcher@1']);
    expect(await bars(page, 'planner', 'model').count()).toBe(3);
    expect(await bars(page, 'researcher', 'model').count()).toBe(2);
    expect(await bars(page, 'planner', 'agent').getAttribute('data-status')).toBe('ok');
    expect(await bars(page, 'researcher', 'approval').getAttribute('data-status')).toBe('granted');
    expect(await bars(page, 'researcher', 'tool').getAttribute('data-status')).toBe('ok');
    for (const cost of await page.locator('[data-kind=model]').evaluateAll((bs) => bs.map((b) => b.dataset.cost)))
      expect(Number(cost)).toBeCloseTo(PER_CALL_USD, 10);
    // The tree's total is the run's own figure.
    const described = await request(`${bed.bridge.url}/runs/${encodeURIComponent(runId)}`, { token: TOKEN });
    const total = Number(await page.getByTestId('timeline-total').getAttribute('data-usd'));
    expect(total).toBeCloseTo(described.body.output.usage.costUsd, 10);
    expect(total).toBeCloseTo(5 * PER_CALL_USD, 10);
    expect(Number(await lanes.nth(1).getAttribute('data-tree-cost'))).toBeCloseTo(2 * PER_CALL_USD, 10);
    // The agent's bar spans its run, which includes the wait for approval (600 ms at least).
    const agentBox = (await bars(page, 'planner', 'agent').boundingBox())!;
    const approvalBox = (await bars(page, 'researcher', 'approval').boundingBox())!;
    expect(approvalBox.x).toBeGreaterThanOrEqual(agentBox.x);
    expect(approvalBox.x + approvalBox.width).toBeLessThanOrEqual(agentBox.x + agentBox.width + 1);
    // One tab stop, arrows between bars, Enter for the details.
    const first = page.locator('[data-testid=timeline-bar][tabindex="0"]');
    await first.focus();
    const focused = () => page.locator(':focus').getAttribute('data-bar-id');
    const before = await focused();
    await page.keyboard.press('ArrowRight');
    expect(await focused()).not.toBe(before);
    await page.keyboard.press('ArrowDown');
    expect(await focused()).toMatch(/researcher|tool\//);
    await bars(page, 'planner', 'model').first().click();
    await page.keyboard.press('Enter');
    const detail = page.getByTestId('timeline-detail');
    expect(await detail.locator('[data-fact=cost]').textContent()).toBe('$0.00036');
    expect(await detail.locator('[data-fact="first token"]').count()).toBe(1);
    expect(await page.getByTestId('timeline-summary').textContent()).toMatch(
      /^2 runs, 5 model calls, 3 tool calls, 1 approval wait, 1 pause; cost \$0\.0018$/,
    );
    await page.getByTestId('timeline').screenshot({ path: SCREENSHOT });
    // Collapsing the planner hides the researcher's lane.
    await page.getByTestId('lane-toggle').click();
    expect(await lanes.count()).toBe(1);
  });

  it('draws a run of 500 steps (the time it takes is printed)', async () => {
    const events = syntheticRun(250);
    const page = (await browser.open()).page;
    const at = (pathname: string) => (url: URL) => url.pathname === pathname;
    await page.route(at('/runs/run-bench'), (route) =>
      route.fulfill({ json: { runId: 'run-bench', agent: 'bench', status: 'completed' } }),
    );
    await page.route(at('/runs/run-bench/stream-token'), (route) =>
      route.fulfill({ json: { events: '/runs/run-bench/events?token=x' } }),
    );
    await page.route(at('/runs/run-bench/events'), (route) =>
      route.fulfill({
        contentType: 'text/event-stream',
        body: events.map((e, i) => `id: ${i}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(''),
      }),
    );
    await signInByLink(page, `${bed.bridge.url}/ui/runs/run-bench#token=${TOKEN}`);
    await page.locator('[data-testid=run-status]:text("completed")').waitFor();
    // From the click to the frame after it is drawn (Preact renders in a microtask; the frame includes layout).
    const timed = (testId: string): Promise<number> =>
      page.evaluate(`(async () => {
        const t0 = performance.now();
        document.querySelector('[data-testid=${testId}]').click();
        await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
        return performance.now() - t0;
      })()`);
    const mount = await timed('view-timeline');
    const drawn = Number(await page.locator('.tl-scroll').getAttribute('data-rendered-bars'));
    const zoomIn = await timed('zoom-in');
    const fit = await timed('zoom-fit');
    expect(drawn).toBe(500);
    expect(await page.getByTestId('timeline-summary').textContent()).toMatch(/^1 run, 250 model calls, 250 tool calls/);
    console.log(
      `timeline of 500 steps: first render ${mount.toFixed(1)} ms (${drawn} bars), zoom ×2 ${zoomIn.toFixed(1)} ms, fit ${fit.toFixed(1)} ms`,
    );
  });
});

/** A run of `calls` model calls each calling a tool: 2 × `calls` steps, 200 ms apart, priced. */
function syntheticRun(calls: number): WireEvent[] {
  const base = { runId: 'run-bench', rootRunId: 'run-bench', agent: 'bench', depth: 0 };
  const events: WireEvent[] = [];
  const push = (e: Partial<WireEvent>) => events.push({ ...base, offset: events.length, ...e } as WireEvent);
  const t0 = 1_700_000_000_000;
  push({ type: 'RUN_STARTED', timestamp: t0, data: { input: 'bench' } });
  const step = (index: number, role: 'assistant' | 'tool', at: number, extra: object) => ({
    stepId: `run-bench:${index}`,
    snapshot: { id: `run-bench:${index}`, runId: 'run-bench', index, role, content: 'x', ...extra },
    timestamp: at,
  });
  const usage = { promptTokens: 1000, completionTokens: 100, totalTokens: 1100, costUsd: 0.00021 };
  for (let i = 0; i < calls; i++) {
    const at = t0 + 10 + i * 400;
    const call = { id: `call_${i}`, name: i % 3 ? 'read_file' : 'bash', arguments: '{}' };
    push({
      type: 'STEP_COMPLETED',
      ...step(1 + 2 * i, 'assistant', at + 150, {
        toolCalls: [call],
        usage,
        metrics: { startedAt: at, durationMs: 150, firstTokenMs: 60, attempt: 1 },
      }),
    });
    push({
      type: 'STEP_COMPLETED',
      ...step(2 + 2 * i, 'tool', at + 390, {
        toolCallId: call.id,
        name: call.name,
        metrics: { startedAt: at + 160, durationMs: 230 },
      }),
    });
  }
  push({ type: 'RUN_COMPLETED', timestamp: t0 + calls * 400 + 50, data: { response: 'done' } });
  return events;
}
