// The Temporal Web UI shows a run's encrypted payloads decoded through the bridge's codec endpoint: a dev server of the
// Temporal CLI (which embeds the UI) started with `--ui-codec-endpoint` set to a codec link, a worker and a bridge with
// the codec, and headless Chromium on the run's page, which must show the prompt and the answer in clear.
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { dataConverterOption, payloadCodecFromEnv } from '../../config/codec-keys';
import { defineAgent } from '../../common';
import { freePort, waitUntil } from '../../devkit/free-port';
import { findBinary } from '../../devkit/install-binary';
import { text } from '../../devkit/scripted-model-server';
import { startSupervised, type SupervisedProcess } from '../../devkit/supervised-process';
import { TEMPORAL_CLI } from '../../devkit/temporal-server';
import { launchBrowser, openPage, screenshot } from '../helpers/browser';
import { request, startBridge, type TestBridge } from '../helpers/bridge';
import { startTestWorker, type TestWorker } from '../helpers/temporal';
import { useTestBed } from '../helpers/test-bed';

const PROMPT = 'ui-marker-48b1: the vault combination is 31-17-42';
const ANSWER = 'ui-answer-marker-9e07';
const codec = payloadCodecFromEnv({ AGIO_CODEC_KEYS: `ui-key:${randomBytes(32).toString('base64')}` });
const agent = defineAgent({ name: 'keeper', instructions: 'Keep secrets.' });

describe('the Temporal Web UI with the codec endpoint', () => {
  jest.setTimeout(120_000);
  const bed = useTestBed({ worker: false });
  let server: SupervisedProcess | undefined;
  let connection: Connection | undefined;
  let bridge: TestBridge | undefined;
  let worker: TestWorker | undefined;

  afterAll(async () => {
    await worker?.stop();
    await bridge?.close();
    await connection?.close();
    await server?.stop();
  });

  it('shows the prompt and the answer that history holds encrypted', async () => {
    const [port, uiPort] = [await freePort(), await freePort()];
    const uiOrigin = `http://127.0.0.1:${uiPort}`;
    // The bridge comes first (its client connects lazily): the UI is started with a codec link the bridge minted.
    connection = Connection.lazy({ address: `127.0.0.1:${port}` });
    const taskQueue = `ui-${port}`;
    const client = new Client({ connection, ...dataConverterOption(codec) });
    const tokens = 'ops-token:default:ops:read+start+admin';
    bridge = await startBridge({ client, taskQueue, agents: [agent], tokens, corsOrigins: [uiOrigin] });
    const link = await request(`${bridge.url}/codec/links`, { body: {}, token: 'ops-token' });
    expect(link.status).toBe(200);

    const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', `${port}`, '--ui-port', `${uiPort}`];
    server = startSupervised(findBinary(TEMPORAL_CLI)!, [...args, '--ui-codec-endpoint', link.body.endpoint]);
    await waitUntil(() => connection!.workflowService.getSystemInfo({}), 'the Temporal CLI dev server', 60_000, 200);
    const nativeConnection = await NativeConnection.connect({ address: `127.0.0.1:${port}` });
    worker = await startTestWorker({
      connection: nativeConnection,
      taskQueue,
      model: bed.model(),
      payloadCodec: codec,
    });
    const stopWorker = worker.stop;
    worker.stop = async () => {
      await stopWorker();
      await nativeConnection.close();
    };

    bed.server.script(text(ANSWER));
    const run = await bridge.agio.start(agent, PROMPT, { tenant: 'default' });
    expect((await run.result()).response).toBe(ANSWER);

    const browser = await launchBrowser();
    try {
      const watched = await openPage(browser);
      await watched.page.goto(`${uiOrigin}/namespaces/default/workflows/${run.runId}`);
      await watched.page
        .getByText(/vault combination/)
        .first()
        .waitFor({ timeout: 30_000 });
      await watched.page.getByText(ANSWER).first().waitFor({ timeout: 10_000 });
      await screenshot(watched.page, 'codec-web-ui');
      // The page asked the bridge's codec link, not anything else of the bridge.
      const bridgeRequests = watched.requests.filter((r) => r.includes('/codec/'));
      expect(bridgeRequests.length).toBeGreaterThan(0);
      expect(bridgeRequests.every((r) => /^(POST|OPTIONS) \/codec\/link\/[^/]+\/decode$/.test(r))).toBe(true);
      await watched.close();
    } finally {
      await browser.close();
    }
  });
});
