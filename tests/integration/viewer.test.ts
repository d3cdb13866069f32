// The run viewer (/ui/) in headless Chromium against a real bridge, worker and dev server: a nested run started from
// the page and watched live, an approval decided there, pause and resume, a reload and a dropped connection
// mid-stream (nothing lost, nothing shown twice), and another tenant's run seen through the browser. Screenshots go
// to test-results/viewer/.
import type { Page } from 'playwright-core';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { asTool, defineAgent, loopAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { InProcessLane } from '../../live/in-process-lane';
import { testTools } from '../fixtures/test-tools';
import { screenshot, type WatchedPage, useBrowserPages } from '../helpers/browser';
import { request, startBridge } from '../helpers/bridge';
import { expectParkedIdle } from '../helpers/run-control';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

const A = 'a-token';
const B = 'b-token';
const lane = new InProcessLane();
const helper = defineAgent({
  name: 'helper',
  instructions: 'You help.',
  tools: ['record'],
  permissions: [{ tool: 'record', action: 'ask' }],
});
const lead = defineAgent({
  name: 'lead',
  instructions: 'You lead.',
  tools: [asTool(helper, { description: 'Delegates to helper.' })],
});
const worker = defineAgent({ name: 'worker', instructions: 'You work.', tools: ['record'] });
const writer = defineAgent({ name: 'writer', instructions: 'You write.' });
const guarded = defineAgent({
  name: 'guarded',
  instructions: 'You ask first.',
  tools: ['record'],
  permissions: [{ tool: 'record', action: 'ask' }],
});
const room = loopAgent({
  name: 'room',
  subAgents: [
    defineAgent({ name: 'drafter', instructions: 'Draft.' }),
    defineAgent({ name: 'reviewer', instructions: 'Review.' }),
  ],
  maxIterations: 2,
});
/** A long answer streamed in small slow pieces: seconds of live deltas to reload or cut in the middle of. */
const STORY = Array.from({ length: 60 }, (_, i) => `line ${i + 1} of the story.`).join('\n');

describe('the run viewer in Chromium', () => {
  // Stream tokens live 3 s here, so a connection dropped later is retried by the browser with an expired token.
  const bed = useTestBed({
    tools: testTools,
    agents: [lead, helper, worker, writer, guarded, room],
    workerOptions: { liveLane: lane },
    bridge: { liveLane: lane, tokens: `${A}:tenant-a,${B}:tenant-b`, streamTokenTtlMs: 3000 },
  });
  // No script error on any page, and nothing requested from anywhere but the bridge.
  const browser = useBrowserPages(({ origins }) => expect([...origins]).toEqual([bed.bridge.url]));

  /** A new page signed in as `token` (the #token= link `agio serve` prints, its prompt accepted), at `path`. */
  let lastPage: WatchedPage | undefined;
  const open = async (path: string, token = A): Promise<Page> =>
    (lastPage = await browser.signedIn(`${bed.bridge.url}${path}`, token)).page;
  const startRun = async (agent: string, input: string, token = A) =>
    (await request(`${bed.bridge.url}/runs`, { token, body: { agent, input } })).body.runId as string;
  const rootStatus = (page: Page) => page.getByTestId('run-status');
  const stats = async (page: Page) => {
    const el = page.getByTestId('event-stats');
    const read = async (name: string) => Number(await el.getAttribute(`data-${name}`));
    return {
      durable: await read('durable'),
      first: await read('first'),
      last: await read('last'),
      deltas: await read('deltas'),
      duplicates: await read('duplicates'),
      gaps: await read('gaps'),
      offsets: await read('offsets'),
      pointers: await read('pointers'),
    };
  };
  /**
   * Every log arrived whole and once: offsets 0..last of each (the root's, and each nested run's own log), each once,
   * with no hole but the pointers to nested runs' own logs (which are not streamed).
   */
  const expectWholeLog = async (page: Page) => {
    const s = await stats(page);
    expect(s).toMatchObject({ first: 0, duplicates: 0, gaps: 0 });
    expect(s.durable).toBe(s.offsets - s.pointers);
    return s;
  };

  it('starts a nested run from the page, streams its tree live and decides an approval there', async () => {
    bed.server.script(
      toolCalls([toolCall('helper', { task: 'record one' })]),
      toolCalls([toolCall('record', { label: 'one' })]),
      text('helper is done', { chunkSize: 3, delayMs: 20 }),
      text(STORY.slice(0, 400), { chunkSize: 6, delayMs: 15, reasoning: 'thinking about the summary' }),
    );
    const page = await open('/ui/');
    await page.getByTestId('start-run').locator('select').selectOption('lead');
    await page.getByTestId('start-run').locator('textarea').fill('record one');
    await page.getByTestId('start-run').getByRole('button', { name: 'Start' }).click();
    await page.waitForURL(/\/ui\/runs\/run-/);
    const runId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);

    // The approval asked two levels down shows on the root's page, with the call's arguments.
    const approval = page.getByTestId('approval');
    await approval.waitFor();
    await expect(approval.getAttribute('data-tool-call-id')).resolves.toBeTruthy();
    expect(await approval.textContent()).toContain('"label": "one"');
    // The helper's run sits under the lead's call, its own call waiting.
    const nested = page.locator('[data-testid=tool-call][data-tool=helper] [data-testid=run-node][data-agent=helper]');
    await nested.locator('[data-testid=tool-call][data-tool=record][data-status=waiting_approval]').waitFor();
    await screenshot(page, 'approval');
    await approval.getByTestId('remember').check();
    await approval.getByTestId('approve').click();

    await page.locator('[data-testid=run-status]:text("completed")').waitFor();
    await page.locator('[data-testid=approvals]').waitFor({ state: 'detached' });
    expect(await nested.locator('[data-testid=tool-call][data-tool=record]').getAttribute('data-status')).toBe('done');
    expect(await nested.locator('[data-testid=tool-result]').textContent()).toBe('recorded one');
    expect(await nested.getAttribute('data-status')).toBe('completed');
    const answers = page.locator(
      `[data-run-id="${runId}"] > .steps > [data-testid=assistant-step] [data-testid=step-content]`,
    );
    expect(await answers.last().textContent()).toBe(STORY.slice(0, 400));
    expect(await page.getByTestId('reasoning').last().textContent()).toBe('thinking about the summary');
    const s = await expectWholeLog(page);
    expect(s.deltas).toBeGreaterThan(0);
    // Usage of the whole tree as the run reports it.
    const described = await request(`${bed.bridge.url}/runs/${encodeURIComponent(runId)}`, { token: A });
    expect(Number(await page.getByTestId('tree-usage').getAttribute('data-total'))).toBe(
      described.body.output.usage.totalTokens,
    );
    await screenshot(page, 'nested-run');
  });

  it('pauses and resumes a run from its page', async () => {
    bed.server.script(toolCalls([toolCall('record', { label: 'slow', ms: 1500 })]), text('resumed and finished'));
    const runId = await startRun('worker', 'work');
    const page = await open(`/ui/runs/${encodeURIComponent(runId)}`);
    await page.locator('[data-testid=tool-call][data-tool=record][data-status=running]').waitFor();
    await page.getByTestId('pause').click();
    await page.getByTestId('run-paused').waitFor();
    // Paused at the step after the tool: the model is not asked again while it is.
    await page.locator('[data-testid=tool-call][data-tool=record][data-status=done]').waitFor();
    await expectParkedIdle(bed.client, [runId]);
    expect(bed.server.requests).toHaveLength(1);
    expect(await rootStatus(page).textContent()).toBe('running');
    await screenshot(page, 'paused');
    await page.getByTestId('resume').click();
    await page.locator('[data-testid=run-status]:text("completed")').waitFor();
    expect(await page.getByTestId('run-paused').count()).toBe(0);
    expect(await page.locator('.notices').textContent()).toMatch(
      /paused by api:tenant-a[\s\S]*resumed by api:tenant-a/,
    );
    await expectWholeLog(page);
  });

  it('cancels a run from its page, after a confirmation', async () => {
    bed.server.script(toolCalls([toolCall('record', { label: 'long', ms: 20_000 })]));
    const runId = await startRun('worker', 'work');
    const page = await open(`/ui/runs/${encodeURIComponent(runId)}`);
    await page.locator('[data-testid=tool-call][data-tool=record][data-status=running]').waitFor();
    await page.getByTestId('cancel').click();
    expect(await rootStatus(page).textContent()).toBe('running');
    await page.getByTestId('confirm-cancel').click();
    await page.locator('[data-testid=run-status]:text("cancelled")').waitFor();
    expect(await page.getByTestId('stream-phase').textContent()).toMatch(/^ended/);
    await expectWholeLog(page);
  });

  it('a connection dropped while a nested run waits resumes from the tree cursor, without losing or repeating', async () => {
    bed.server.script(
      toolCalls([toolCall('helper', { task: 'record one' })]),
      toolCalls([toolCall('record', { label: 'one' })]),
      text('helper is done'),
      text('lead is done'),
    );
    const runId = await startRun('lead', 'record one');
    const page = await open(`/ui/runs/${encodeURIComponent(runId)}`);
    const openedAt = Date.now();
    await page.getByTestId('approval').waitFor();
    // Cut once the page's stream token has expired: the page mints a new one and resumes with ?after=<its last id>,
    // which names the helper's log, open at its approval request (the helper keeps its own log).
    await waitFor('the stream token to expire', () => Date.now() - openedAt > 3200);
    bed.bridge.app.server.closeAllConnections();
    await waitFor('the resumed stream', () =>
      lastPage!.requests.some((r) => r.startsWith('GET') && /[?&]after=\d+~\d+%3A/.test(r)),
    );
    await page.getByTestId('approval').getByTestId('approve').click();
    await page.locator('[data-testid=run-status]:text("completed")').waitFor();
    const helperRun = page.locator('[data-testid=run-node][data-agent=helper]');
    expect(await helperRun.getAttribute('data-status')).toBe('completed');
    expect(await page.getByTestId('stream-phase').textContent()).toMatch(/ended · \d+ reconnects?/);
    await expectWholeLog(page);
  });

  it('reloaded mid-stream, the page shows the whole answer once', async () => {
    bed.server.script(text(STORY, { chunkSize: 8, delayMs: 25 }));
    const runId = await startRun('writer', 'write');
    const page = await open(`/ui/runs/${encodeURIComponent(runId)}`);
    await page.locator('[data-testid=assistant-step][data-live=true] [data-testid=step-content]').waitFor();
    await page.reload();
    await page.locator('[data-testid=run-status]:text("completed")').waitFor();
    expect(await page.getByTestId('step-content').textContent()).toBe(STORY);
    await expectWholeLog(page);
  });

  it('a dropped connection resumes where it was, past an expired stream token, without losing or repeating', async () => {
    bed.server.script(text(STORY, { chunkSize: 8, delayMs: 30, firstChunkDelayMs: 3200 }));
    const runId = await startRun('writer', 'write');
    const page = await open(`/ui/runs/${encodeURIComponent(runId)}`);
    // Mid-answer and after the page's stream token expired (3 s), every connection to the bridge is cut.
    await page.getByTestId('step-content').filter({ hasText: 'line 12 of the story.' }).waitFor();
    bed.bridge.app.server.closeAllConnections();
    await page.locator('[data-testid=run-status]:text("completed")').waitFor();
    // The browser's own retry met the expired token; the page minted a new one and resumed with ?after=.
    const { requests } = lastPage!;
    expect(requests.filter((r) => r.startsWith('POST') && r.endsWith('/stream-token'))).toHaveLength(2);
    expect(requests.filter((r) => r.startsWith('GET') && r.includes('/events?'))).toEqual([
      expect.not.stringContaining('after='),
      expect.not.stringContaining('after='),
      expect.stringMatching(/&after=\d+(\.\d+)?$/),
    ]);
    expect(await page.getByTestId('stream-phase').textContent()).toMatch(/ended · \d+ reconnects?/);
    expect(await page.getByTestId('step-content').textContent()).toBe(STORY);
    const s = await expectWholeLog(page);
    expect(s.deltas).toBeGreaterThan(10);
    await screenshot(page, 'resumed');
  });

  it('denies a call with a message the agent then reads', async () => {
    bed.server.script(toolCalls([toolCall('record', { label: 'risky' })]), text('understood'));
    const runId = await startRun('guarded', 'go');
    const page = await open(`/ui/runs/${encodeURIComponent(runId)}`);
    const approval = page.getByTestId('approval');
    await approval.getByTestId('deny-message').fill('not on Fridays');
    await approval.getByTestId('deny').click();
    await page.locator('[data-testid=run-status]:text("completed")').waitFor();
    const call = page.locator('[data-testid=tool-call][data-tool=record]');
    expect(await call.getAttribute('data-status')).toBe('denied');
    expect(await call.getByTestId('decision').textContent()).toBe('denied by api:tenant-a: not on Fridays');
    expect(await call.getByTestId('tool-result').textContent()).toContain('not on Fridays');
    expect(JSON.stringify(bed.server.requests[1].body.messages)).toContain('not on Fridays');
  });

  it("shows a loop agent's sub-agent runs and its position", async () => {
    bed.server.script(text('draft 1'), text('review 1'), text('draft 2'), text('review 2'));
    const runId = await startRun('room', 'write a haiku');
    const page = await open(`/ui/runs/${encodeURIComponent(runId)}`);
    await page.locator('[data-testid=run-status]:text("completed")').waitFor();
    const root = page.locator(`[data-run-id="${runId}"]`);
    expect(
      await root
        .locator('> [data-testid=run-node]')
        .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-agent'))),
    ).toEqual(['drafter', 'reviewer', 'drafter', 'reviewer']);
    expect(await root.locator('> header [data-testid=position]').textContent()).toBe('iteration 2 · at reviewer (#2)');
    expect(await root.locator('> [data-testid=run-node] [data-testid=step-content]').allTextContents()).toEqual([
      'draft 1',
      'review 1',
      'draft 2',
      'review 2',
    ]);
    await expectWholeLog(page);
    await screenshot(page, 'loop');
  });

  it('serves the app under a same-origin policy, and says so when it is not built', async () => {
    const page = await fetch(`${bed.bridge.url}/ui/runs/${encodeURIComponent('run-x/tool/call_1')}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    const asset = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    expect((await fetch(`${bed.bridge.url}${asset}`)).headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${bed.bridge.url}/ui`, { redirect: 'manual' })).headers.get('location')).toBe('/ui/');
    const bare = await startBridge({
      client: bed.client,
      taskQueue: bed.worker.taskQueue,
      viewerDir: await mkdtemp(path.join(tmpdir(), 'agio-no-viewer-')),
    });
    try {
      expect(await request(`${bare.url}/ui/`)).toMatchObject({
        status: 503,
        body: { error: { code: 'viewer_not_built', message: expect.stringContaining('npm run build:ui') } },
      });
    } finally {
      await bare.close();
    }
  });

  it("keeps another tenant's runs out of the browser, and lists and filters runs", async () => {
    bed.server.script(text('for A only'));
    const runId = await startRun('writer', 'secret');
    await bed.bridge.agio.getHandle(runId).result();
    const other = await open(`/ui/runs/${encodeURIComponent(runId)}`, B);
    await other.locator('.error').waitFor();
    expect(await other.locator('.error').textContent()).toBe(`no run with id "${runId}"`);
    expect(await other.locator('[data-testid=run-node]').count()).toBe(0);
    // Tenant B's list does not show it; tenant A's does, and its filters narrow it.
    await other.goto(`${bed.bridge.url}/ui/`);
    await other.locator('h1:text("Runs")').waitFor();
    await other.waitForTimeout(500);
    expect(await other.locator(`[data-run-id="${runId}"]`).count()).toBe(0);
    const page = await open('/ui/');
    await page.locator(`tr[data-run-id="${runId}"]`).waitFor();
    await page.getByTestId('filter-agent').selectOption('lead');
    await page.waitForURL(/agent=lead/);
    await page.locator(`tr[data-run-id="${runId}"]`).waitFor({ state: 'detached' });
    expect(await page.locator('tbody tr').count()).toBeGreaterThan(0);
    for (const agent of await page.locator('tbody tr td:nth-child(2)').allTextContents()) expect(agent).toBe('lead');
    await page.getByTestId('filter-agent').selectOption('writer');
    await page.getByTestId('filter-status').selectOption('completed');
    await page.locator(`tr[data-run-id="${runId}"]`).waitFor();
    await screenshot(page, 'runs');
    // A wrong token signs out with the bridge's reason.
    const stranger = await open('/ui/', 'not-a-token');
    await stranger.getByTestId('sign-in-error').waitFor();
    expect(await stranger.getByTestId('sign-in-error').textContent()).toBe('unknown bearer token');
  });
});
