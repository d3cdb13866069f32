// Free loopback ports and readiness polling for the servers Agio starts itself.
import net from 'node:net';

/** Ports this process handed out lately, and when: the OS may offer a just-released port again at once. */
const handedOut = new Map<number, number>();
const HANDED_OUT_FOR_MS = 60_000;

/**
 * Asks the OS for a free TCP port on 127.0.0.1, never one this process handed out in the last minute: a server given
 * a port does not bind it at once, and two servers started side by side (each with nine ports) must not share one.
 */
export async function freePort(): Promise<number> {
  const now = Date.now();
  for (const [port, at] of handedOut) if (now - at > HANDED_OUT_FOR_MS) handedOut.delete(port);
  for (;;) {
    const port = await osFreePort();
    if (handedOut.has(port)) continue;
    handedOut.set(port, now);
    return port;
  }
}

function osFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether `port` is free on loopback now. */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** `preferred` when it is free on loopback now, else a free port. */
export async function portOr(preferred: number): Promise<number> {
  return (await isPortFree(preferred)) ? preferred : freePort();
}

/** Resolves once `check` succeeds, retrying every `intervalMs`; rejects with the last error after `timeoutMs`. */
export async function waitUntil(
  check: () => Promise<unknown>,
  what: string,
  timeoutMs = 60_000,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      await check();
      return;
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
  throw new Error(`${what} was not ready after ${timeoutMs} ms: ${String(lastError)}`);
}

/** Resolves when a TCP connection to host:port succeeds. */
export function tcpReachable(port: number, host = '127.0.0.1'): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host }, () => {
      socket.end();
      resolve();
    });
    socket.on('error', reject);
  });
}
