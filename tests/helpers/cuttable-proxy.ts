// A TCP proxy in front of a server (the harness's FerretDB) that a test can cut and restore, as a database that is
// restarting or a network partition would look to its clients: while cut, every open connection is dropped and every
// new one is closed at once. Other tests keep using the server directly.
import net from 'node:net';

/** A running proxy. */
export interface CuttableProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** Drops every connection and refuses new ones until {@link restore}. */
  cut(): void;
  /** Lets connections through again. */
  restore(): void;
  close(): Promise<void>;
}

/** Starts a proxy on a free loopback port forwarding to `target`. */
export async function startCuttableProxy(target: { host: string; port: number }): Promise<CuttableProxy> {
  const sockets = new Set<net.Socket>();
  let down = false;
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    if (down) return void client.destroy();
    const upstream = net.connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      down = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      down = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
