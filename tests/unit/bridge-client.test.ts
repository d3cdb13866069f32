// The CLI's bridge client when no bridge answers: the error names the URL it tried and how to point it elsewhere, and
// following a run stops instead of retrying in silence.
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

  it('stops following a run, naming the URL, when no bridge ever answered', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const events = jest.fn();
    await expect(new BridgeClient(url, 'token').streamEvents('run-1', events)).rejects.toThrow(
      `cannot reach the bridge at ${url} (fetch failed: ECONNREFUSED)`,
    );
    expect(events).not.toHaveBeenCalled();
  });
});
