// The viewer's approvals inbox (/ui/approvals) in headless Chromium against a real bridge, worker and dev server: the
// tenant's calls waiting at the root and in a nested run are listed and decided on the page (approve, deny with a
// message); an escalated call says so, with its buttons off for a token without the role, and the role's token
// decides it. Screenshot: test-results/viewer/approvals-inbox.png.
import type { Page } from 'playwright-core';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { sentToolResult } from '../helpers/agent-runs';
import {
  askingAgent,
  authData,
  keyOf,
  recordsOf,
  waitForAsk,
  waitForAuth,
  delegatingAgent,
} from '../helpers/approvals';
import { screenshot, useBrowserPages } from '../helpers/browser';
import { requestsOf } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';

const ALICE = 'alice-token';
const LEAD = 'lead-token';

describe('the approvals inbox in the viewer', () => {
  const bed = useTestBed({ tools: testTools, bridge: { tokens: `${ALICE}:acme:alice,${LEAD}:acme:bob::lead` } });
  const browser = useBrowserPages(({ origins }) => expect([...origins]).toEqual([bed.bridge.url]));
  const openInbox = async (token: string): Promise<Page> => {
    const { page } = await browser.signedIn(`${bed.bridge.url}/ui/approvals`, token);
    await page.getByTestId('approvals-inbox').waitFor();
    return page;
  };
  const item = (page: Page, toolCallId: string) =>
    page.locator(`[data-testid=inbox-item][data-tool-call-id=${toolCallId}]`);

  it('lists the calls waiting at the root and in a nested run, and approves and denies them there', async () => {
    const child = askingAgent('page-child');
    const parent = delegatingAgent('page-parent', child, 'Delegates.');
    const root = askingAgent('page-root');
    bed.server.scriptFor(
      keyOf(root),
      toolCalls([toolCall('record', { label: 'from the page' }, { id: 'call_ok' })]),
      text('approved'),
    );
    bed.server.scriptFor(
      keyOf(parent),
      toolCalls([toolCall('page-child', { task: 'x' }, { id: 'call_kid' })]),
      text('parent done'),
    );
    bed.server.scriptFor(
      keyOf(child),
      toolCalls([toolCall('record', { label: 'no' }, { id: 'call_no' })]),
      text('child told no'),
    );
    const a = await bed.bridge.agio.start(root, 'record', { tenant: 'acme' });
    const b = await bed.bridge.agio.start(parent, 'delegate', { tenant: 'acme' });
    await Promise.all([waitForAsk(bed.client, a.runId, 'call_ok'), waitForAsk(bed.client, b.runId, 'call_no')]);

    const page = await openInbox(ALICE);
    await item(page, 'call_ok').waitFor();
    await item(page, 'call_no').waitFor();
    expect(await item(page, 'call_no').innerText()).toMatch(
      /page-child wants to call record[\s\S]*nested run \(depth 1\)/,
    );
    expect(await item(page, 'call_ok').locator('pre.args').innerText()).toContain('"label": "from the page"');
    await screenshot(page, 'approvals-inbox');

    await item(page, 'call_ok').getByTestId('approve').click();
    await item(page, 'call_no').getByTestId('deny-message').fill('not from the inbox');
    await item(page, 'call_no').getByTestId('deny').click();
    await page.getByTestId('inbox-empty').waitFor();

    expect((await a.result()).response).toBe('approved');
    expect((await b.result()).response).toBe('parent done');
    expect(authData(await waitForAuth(bed.client, a.runId, 'TOOL_AUTH_GRANTED', 'call_ok')).by).toBe('alice');
    expect(sentToolResult(requestsOf(bed.server, keyOf(child))[1], 'call_no')).toContain('not from the inbox');
    expect(recordsOf(a.runId).map((r) => r.label)).toEqual(['from the page']);
  });

  it('shows an escalated call, off for a token without the role, and lets the role decide it', async () => {
    const agent = askingAgent('page-escalator', {
      permissions: [{ tool: 'record', action: 'ask', expiresAfterMs: 1000, onExpiry: 'escalate', escalateTo: 'lead' }],
    });
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'lead' }, { id: 'call_up' })]),
      text('lead approved'),
    );
    const run = await bed.bridge.agio.start(agent, 'record', { tenant: 'acme' });
    await waitForAuth(bed.client, run.runId, 'TOOL_AUTH_EXPIRED', 'call_up');

    const page = await openInbox(ALICE);
    await page.getByText('escalated to lead: only that role decides it').waitFor();
    // Its buttons are off for a token without the role (the bridge would answer 403 anyway: approvals-expiry).
    expect(await item(page, 'call_up').getByTestId('approve').isDisabled()).toBe(true);
    expect(await item(page, 'call_up').getByTestId('deny').isDisabled()).toBe(true);
    // The run's own page says so too, from the stream's TOOL_AUTH_EXPIRED.
    const { page: runPage } = await browser.signedIn(
      `${bed.bridge.url}/ui/runs/${encodeURIComponent(run.runId)}`,
      ALICE,
    );
    await runPage.getByTestId('approval').getByTestId('escalated').waitFor();
    expect(await runPage.getByTestId('approval').getByTestId('approve').isDisabled()).toBe(true);

    const lead = await openInbox(LEAD);
    await item(lead, 'call_up').getByTestId('approve').click();
    await lead.getByTestId('inbox-empty').waitFor();
    expect((await run.result()).response).toBe('lead approved');
    expect(authData(await waitForAuth(bed.client, run.runId, 'TOOL_AUTH_GRANTED', 'call_up')).by).toBe('bob');
  });
});
