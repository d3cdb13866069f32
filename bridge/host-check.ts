// The bridge's door checks against browsers on other sites: a Host allow-list (a page on attacker.example whose name
// was rebound to 127.0.0.1 sends `Host: attacker.example`, so DNS rebinding reaches nothing) and, on requests that
// change state, an Origin that must be the bridge's own or one of the CORS origins.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isIP } from 'node:net';
import os from 'node:os';

/** Host names a loopback-bound bridge answers to (any port). */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1'];

/** Whether `host` (a bind address) is a loopback one: only this machine can connect. */
export function isLoopbackBind(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * The Host names a bridge listening on `bindHost` accepts. AGIO_ALLOWED_HOSTS (comma list; `*` turns the check off)
 * is added to the loopback names. A bridge bound elsewhere also accepts the machine's host name and, in any case, a
 * literal IP address (a page can only reach an IP by its own origin, so rebinding cannot use one).
 */
export function allowedHostsFor(bindHost: string, configured: string | undefined): string[] {
  const names = (configured ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return isLoopbackBind(bindHost)
    ? [...LOOPBACK_HOSTS, ...names]
    : [...LOOPBACK_HOSTS, os.hostname(), '<ip>', ...names];
}

/** The name part of a Host header (`[::1]:8080` → `::1`, `Example.COM:80` → `example.com`). */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const colon = h.indexOf(':');
  return colon === h.lastIndexOf(':') && colon >= 0 ? h.slice(0, colon) : h;
}

/**
 * Whether `header` names a host in `allowed` (`*` allows all, `<ip>` any literal IP, `.example.com` its subdomains).
 */
export function hostAllowed(header: string | undefined, allowed: string[]): boolean {
  if (allowed.includes('*')) return true;
  if (!header) return false;
  const name = hostName(header).replace(/\.$/, '');
  return allowed.some((entry) => {
    const e = entry.toLowerCase().replace(/^\[|\]$/g, '');
    if (e === '<ip>') return isIP(name) !== 0;
    if (e.startsWith('.')) return name.endsWith(e) || name === e.slice(1);
    return name === e;
  });
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a request's Origin may change state: none (not a browser), the bridge's own, or an allowed CORS origin. */
export function originAllowed(origin: string | undefined, host: string | undefined, corsOrigins: string[]): boolean {
  if (origin === undefined) return true;
  if (corsOrigins.includes('*') || corsOrigins.includes(origin)) return true;
  try {
    return host !== undefined && new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

function refuse(reply: FastifyReply, code: string, message: string): void {
  void reply.status(403).send({ error: { code, message } });
}

/** Registers both checks first of all hooks, for every route (the viewer's files included). */
export function registerHostCheck(app: FastifyInstance, allowedHosts: string[], corsOrigins: string[]): void {
  app.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const host = req.headers.host;
    if (!hostAllowed(host, allowedHosts)) {
      return refuse(
        reply,
        'host_not_allowed',
        `Host "${host ?? ''}" is not a name this bridge answers to (DNS rebinding guard): ` +
          'add it to AGIO_ALLOWED_HOSTS',
      );
    }
    const origin = req.headers.origin;
    if (!SAFE_METHODS.has(req.method) && !originAllowed(origin, host, corsOrigins)) {
      return refuse(
        reply,
        'origin_not_allowed',
        `a page from ${origin} may not change anything here: add its origin to AGIO_CORS_ORIGINS`,
      );
    }
    done();
  });
}
