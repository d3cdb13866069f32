// One webhook request: POST the body to the receiver with a timeout, connecting only to addresses the policy allows
// (checked in the DNS lookup the connection itself uses, so a name cannot resolve one way for the check and another
// for the connection), never following a redirect, and reading nothing of the answer but its status.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { checkedLookup, forbiddenAddress, hostOf, isForbiddenAddress } from '../../platform/address-policy';

/** What a receiver answered, or why there is no answer. */
export interface WebhookAnswer {
  status?: number;
  error?: string;
  durationMs: number;
  /** The destination was refused (an address the policy forbids): retrying changes nothing. */
  refused?: boolean;
}

/** POSTs `body` with `headers`; never throws. */
export function postWebhook(
  target: string,
  headers: Record<string, string>,
  body: string,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<WebhookAnswer> {
  const started = Date.now();
  const done = (answer: Omit<WebhookAnswer, 'durationMs'>): WebhookAnswer => ({
    ...answer,
    durationMs: Date.now() - started,
  });
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return Promise.resolve(done({ error: 'malformed URL', refused: true }));
  }
  const host = hostOf(url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return Promise.resolve(done({ error: 'only http(s) URLs', refused: true }));
  if (!opts.allowPrivate && isIP(host) && isForbiddenAddress(host))
    return Promise.resolve(done({ error: forbiddenAddress(host).message, refused: true }));
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: Omit<WebhookAnswer, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(done(answer));
    };
    const req = request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        ...(opts.allowPrivate ? {} : { lookup: checkedLookup }),
        agent: false,
      },
      (res) => {
        // The status is the answer: the body is not read (the connection is closed), so no receiver can make an
        // attempt read or wait for more.
        const status = res.statusCode ?? 0;
        finish(status >= 200 && status < 300 ? { status } : { status, error: `HTTP ${status}` });
      },
    );
    const timer = setTimeout(() => finish({ error: `no answer within ${opts.timeoutMs} ms` }), opts.timeoutMs);
    req.on('error', (err) =>
      finish({ error: err.message, ...(err.name === 'ForbiddenWebhookUrlError' ? { refused: true } : {}) }),
    );
    req.end(body);
  });
}
