// The only way Agio reaches a remote A2A agent: a fetch for the SDK's client that connects only to addresses the
// webhook address policy allows (checked in the connection's own DNS lookup, so a name cannot resolve one way for a
// check and another for the connection), never follows a redirect, and reads at most `maxBytes` of an answer.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { checkedLookup, forbiddenAddress, hostOf, isForbiddenAddress } from '../../platform/address-policy';

/** Largest answer read from a remote agent (a card, a task): more is an error. */
export const MAX_REMOTE_ANSWER_BYTES = 1024 * 1024;

/** A fetch bounded as above (`timeoutMs` per request). */
export function guardedFetch(opts: { allowPrivate: boolean; timeoutMs: number; maxBytes?: number }): typeof fetch {
  const maxBytes = opts.maxBytes ?? MAX_REMOTE_ANSWER_BYTES;
  return async (input, init = {}) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`remote agent: only http(s), not ${url.protocol}`);
    if (url.username || url.password) throw new Error('remote agent: credentials in a URL are refused');
    const host = hostOf(url);
    if (!opts.allowPrivate && isIP(host) && isForbiddenAddress(host)) throw forbiddenAddress(host);
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const body = typeof init.body === 'string' ? init.body : undefined;
    const request = url.protocol === 'https:' ? https.request : http.request;
    return new Promise<Response>((resolve, reject) => {
      const req = request(
        url,
        {
          method: init.method ?? 'GET',
          headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
          ...(opts.allowPrivate ? {} : { lookup: checkedLookup }),
          agent: false,
          timeout: opts.timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > maxBytes) {
              req.destroy(new Error(`remote agent: answer larger than ${maxBytes} bytes`));
              return;
            }
            chunks.push(c);
          });
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const answer = new Headers();
            for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') answer.set(k, v);
            // A redirect is an answer, never followed: the SDK reports its status.
            resolve(
              new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), {
                status,
                headers: answer,
              }),
            );
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`remote agent: no answer within ${opts.timeoutMs} ms`)));
      req.on('error', reject);
      init.signal?.addEventListener('abort', () => req.destroy(new Error('aborted')), { once: true });
      req.end(body);
    });
  };
}
