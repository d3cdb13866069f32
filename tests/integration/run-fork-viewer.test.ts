// Retry and fork in the viewer (ui/src/views/rescue.tsx) in Chromium through a real bridge and worker: a failed run's
// page retries it from its last good step and opens the retry, which says what it is a retry of; "Fork from here" on a
// tool result replaces it and opens the fork, whose model call reads the new result.
import { defineAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { sentMessages, sentToolResult } from '../helpers/agent-runs';
import { useBrowserPages } from '../helpers/browser';
import { useTestBed } from '../helpers/test-bed';

const TOKEN = 'rescue-viewer-token';
const agent = defineAgent({ name: 'viewer-rescuer', instructions: 'You are viewer-rescuer.', tools: ['echo'] });

describe('retry and fork in the viewer', () => {
  const bed = useTestBed({ tools: testTools, agents: [agent], bridge: { tokens: `${TOKEN}:acme:alice` } });
  const browser = useBrowserPages();
  const open = async (runId: string) =>
    (await browser.signedIn(`${bed.bridge.url}/ui/runs/${encodeURIComponent(runId)}`, TOKEN)).page;

  it('retries a failed run from its page and opens the retry', async () => {
    bed.server.script(toolCalls([toolCall('echo', { text: 'kept' }, { id: 'c1' })]), { error: { status: 400 } });
    const run = await bed.bridge.agio.start(agent, 'go on', { tenant: 'acme' });
    await expect(run.result()).rejects.toThrow();
    const page = await open(run.runId);
    await page.getByTestId('run-status').getByText('failed').waitFor();
    bed.server.script(text('finished on retry'));
    await page.getByTestId('retry').click();
    await page.getByTestId('lineage').getByText('Retry of').waitFor();
    await page.getByTestId('run-status').getByText('completed').waitFor();
    await page.getByText('finished on retry').first().waitFor();
    expect(bed.server.requests).toHaveLength(3);
    expect(sentMessages(bed.server.requests[2])).toEqual(sentMessages(bed.server.requests[1]));
    // The runs list marks the retry (once visibility has it: the list refreshes itself).
    await page.goto(`${bed.bridge.url}/ui/?agent=viewer-rescuer`);
    await page.getByTestId('run-origin').getByText('retry').waitFor();
  });

  it('forks from a tool result with a new result and opens the fork', async () => {
    bed.server.script(toolCalls([toolCall('echo', { text: 'old result' }, { id: 'c1' })]), text('first answer'));
    const run = await bed.bridge.agio.start(agent, 'look', { tenant: 'acme' });
    await run.result();
    const page = await open(run.runId);
    const call = page.locator('[data-testid=tool-call][data-call-id=c1]');
    await call.getByTestId('fork-from-here').click();
    await call.getByTestId('fork-text').fill('new result');
    bed.server.script(text('second answer'));
    await call.getByTestId('fork-start').click();
    await page.getByTestId('lineage').getByText('Fork of').waitFor();
    await page.getByTestId('run-status').getByText('completed').waitFor();
    await page.getByText('second answer').first().waitFor();
    expect(sentToolResult(bed.server.requests[2], 'c1')).toBe('new result');
  });
});
