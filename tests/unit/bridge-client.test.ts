// The CLI's bridge client, when no bridge answers: the error names the URL it tried and how to point it elsewhere.
import { BridgeClient } from '../../cli/bridge-client';
import { freePort } from '../../devkit/free-port';

describe('BridgeClient', () => {
  it('names the URL it tried and AGIO_URL when nothing listens there', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const request = new BridgeClient(url, 'token').request('GET', '/agents');
    await expect(request).rejects.toThrow(
      `cannot reach the bridge at ${url} (fetch failed: ECONNREFUSED); is it running? Set AGIO_URL to its URL.`,
    );
  });
});
