// The viewer's message box (ui/src/views/run-message.tsx) in Chromium through a real bridge and worker: a message
// typed on a running run's page reaches the model's next request and shows as a step; a read-only token sees why it
// may not send one.
import { defineAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { heldAnswer, sentMessages } from '../helpers/agent-runs';
import { useBrowserPages } from '../helpers/browser';
import { useTestBed } from '../helpers/test-bed';

const FULL = 'full-token';
const READER = 'reader-token';
const agent = defineAgent({ name: 'viewer-talker', instructions: 'You are viewer-talker.', tools: ['record'] });

describe('the viewer message box', () => {
  const bed = useTestBed({
    tools: testTools,
    agents: [agent],
    bridge: { tokens: `${FULL}:acme:alice,${READER}:acme:dash:read` },
  });
  const browser = useBrowserPages();
  const open = async (path: string, token: string) => (await browser.signedIn(`${bed.bridge.url}${path}`, token)).page;

  it('sends a message to a running run, which the model reads next turn', async () => {
    const held = heldAnswer(toolCalls([toolCall('record', { label: 'v' })]));
    bed.server.scriptFor('You are viewer-talker.', held.answer, text('done'));
    const run = await bed.bridge.agio.start(agent, 'start', { tenant: 'acme' });
    const path = `/ui/runs/${encodeURIComponent(run.runId)}`;

    const reader = await open(path, READER);
    await reader.getByTestId('no-message').waitFor();

    const page = await open(path, FULL);
    const box = page.getByTestId('message-box');
    await box.waitFor();
    await box.locator('input').fill('typed in the viewer');
    await page.getByTestId('send-message').click();
    await box.getByText('sent: read at the next turn').waitFor();
    held.release();
    await run.result();
    expect(sentMessages(bed.server.requests[1]).at(-1)).toMatchObject({ role: 'user', content: 'typed in the viewer' });
    await page.getByText('typed in the viewer').first().waitFor();
    expect(await page.getByTestId('message-box').count()).toBe(0); // the run has ended
  });
});
