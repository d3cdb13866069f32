// The viewer with a read-only token: it shows the runs and the calls waiting for approval, and says what the token may
// not do (start, decide, pause/resume/cancel) with those controls disabled, instead of failing with 403 once clicked.
import { toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { askingAgent, keyOf, waitForAsk } from '../helpers/approvals';
import { useBrowserPages } from '../helpers/browser';
import { useTestBed } from '../helpers/test-bed';

const READER = 'reader-token';
const FULL = 'full-token';
const asker = askingAgent('viewer-role-asker');

describe('the viewer with a read-only token', () => {
  const bed = useTestBed({
    tools: testTools,
    agents: [asker],
    bridge: { tokens: `${FULL}:acme:alice,${READER}:acme:dash:read` },
  });
  const browser = useBrowserPages();
  const open = async (path: string, token: string) => (await browser.signedIn(`${bed.bridge.url}${path}`, token)).page;

  it('shows a waiting call without letting it be decided, and no start, pause or cancel', async () => {
    bed.server.scriptFor(keyOf(asker), toolCalls([toolCall('record', { label: 'r' }, { id: 'call_v' })]));
    const run = await bed.bridge.agio.start(asker, 'record', { tenant: 'acme' });
    await waitForAsk(bed.client, run.runId, 'call_v');

    const list = await open('/ui/', READER);
    await list.getByTestId('no-start').waitFor();
    expect(await list.getByTestId('start-run').locator('button[type=submit]').isDisabled()).toBe(true);

    const page = await open(`/ui/runs/${encodeURIComponent(run.runId)}`, READER);
    const approval = page.getByTestId('approval');
    await approval.waitFor();
    await page.getByTestId('no-decide').waitFor();
    expect(await approval.getByTestId('approve').isDisabled()).toBe(true);
    expect(await approval.getByTestId('deny').isDisabled()).toBe(true);
    await page.getByTestId('no-control').waitFor();
    expect(await page.getByTestId('pause').count()).toBe(0);

    // A token that may decide sees the buttons enabled and no such notes.
    const full = await open(`/ui/runs/${encodeURIComponent(run.runId)}`, FULL);
    await full.getByTestId('approval').waitFor();
    await full.getByTestId('pause').waitFor();
    expect(await full.getByTestId('approval').getByTestId('approve').isEnabled()).toBe(true);
    expect(await full.getByTestId('no-decide').count()).toBe(0);
    await run.cancel();
  });
});
