// Where a webhook may point. Subscription URLs come from API callers, so a worker must not be made to call its own
// network: loopback, private, link-local (cloud metadata), shared, reserved and multicast addresses are refused,
// when a subscription is created and again at each attempt after DNS resolution (http.ts pins the checked address).
// AGIO_WEBHOOK_ALLOW_PRIVATE=1 allows them (tests, a receiver on the same host).
import { BlockList, isIP, type LookupFunction } from 'node:net';
import dns from 'node:dns';

const FORBIDDEN = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  FORBIDDEN.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 96], // unspecified, loopback and IPv4-compatible (IPv4-mapped ones are checked as IPv4)
  ['64:ff9b::', 96], // NAT64: an IPv4 address inside
  ['100::', 64],
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4: an IPv4 address inside
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  FORBIDDEN.addSubnet(net, bits, 'ipv6');

/** A webhook URL that may not be called: the message says why. */
export class ForbiddenWebhookUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ForbiddenWebhookUrlError';
  }
}

/** Whether an IP address is one a webhook may not reach (see the file's comment). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return FORBIDDEN.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The URL's host as an address or a name, without IPv6 brackets or a trailing dot (`localhost.` is localhost). */
export function hostOf(url: URL): string {
  return url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
    .toLowerCase();
}

/**
 * Checks a subscription's URL (throws {@link ForbiddenWebhookUrlError}): http(s), no credentials in it, and unless
 * `allowPrivate` neither a forbidden address nor a name that resolves to one. A name that does not resolve now passes
 * (each attempt checks again).
 */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ForbiddenWebhookUrlError('url: not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ForbiddenWebhookUrlError('url: only http:// and https:// URLs receive webhooks');
  if (url.username || url.password) throw new ForbiddenWebhookUrlError('url: credentials in the URL are refused');
  if (allowPrivate) return url;
  const host = hostOf(url);
  if (isIP(host)) {
    if (isForbiddenAddress(host)) throw forbiddenAddress(host);
    return url;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) throw forbiddenAddress(host);
  const addresses = await dns.promises.lookup(host, { all: true, verbatim: true }).catch(() => []);
  const bad = addresses.find((a) => isForbiddenAddress(a.address));
  if (bad) throw forbiddenAddress(`${host} (${bad.address})`);
  return url;
}

/** The error for a refused destination. */
export function forbiddenAddress(what: string): ForbiddenWebhookUrlError {
  return new ForbiddenWebhookUrlError(
    `url: ${what} is a loopback, private, link-local or reserved address, which webhooks may not reach`,
  );
}

/**
 * A DNS lookup that fails for an address the policy forbids: given to a connection as its `lookup`, so the address
 * checked is the one it connects to (webhook deliveries, remote A2A agents).
 */
export const checkedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as dns.LookupAddress[];
    const bad = list.find((a) => isForbiddenAddress(a.address));
    if (bad || !list.length) return callback(forbiddenAddress(`${hostname} (${bad?.address ?? 'no address'})`), '', 0);
    if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    callback(null, list[0].address, list[0].family);
  });
};
