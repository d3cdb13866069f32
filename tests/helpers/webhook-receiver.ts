// A webhook receiver for integration tests: a real HTTP server on loopback that checks each delivery's signature with
// the Standard Webhooks library (secrets registered per path), records what it got, and answers as a test scripts it
// (a status, a hang, a redirect).
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One delivery the receiver got. */
export interface ReceivedWebhook {
  path: string;
  id: string;
  timestamp: number;
  /** Whether the signature verified with the path's secret. */
  verified: boolean;
  // Bodies are the webhook's JSON; tests index into them freely.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  receivedAt: number;
}

/** How the receiver answers a request: a status (default 200), or `hang` (never answers), with headers. */
export type ReceiverAnswer = { status?: number; hang?: true; headers?: Record<string, string> };

/** A listening receiver. */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly secrets = new Map<string, string>();
  private readonly sockets = new Set<Socket>();
  /** Answers per path (default 200); called with the number of earlier requests to the path. */
  answer: (path: string, earlier: number) => ReceiverAnswer = () => ({});

  private constructor(private readonly server: http.Server) {}

  /** Starts one on 127.0.0.1 (on `port` when given, to come back on the same address after a stop). */
  static async start(port = 0): Promise<WebhookReceiver> {
    const server = http.createServer();
    const receiver = new WebhookReceiver(server);
    server.on('connection', (s) => {
      receiver.sockets.add(s);
      s.on('close', () => receiver.sockets.delete(s));
    });
    server.on('request', (req, res) => receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The URL of a path on this receiver. */
  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The secret deliveries to `path` are verified with. */
  verifyWith(path: string, secret: string): void {
    this.secrets.set(path, secret);
  }

  /** What `path` received. */
  at(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Stops listening and drops open connections (hung answers included). */
  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const headers = req.headers as Record<string, string>;
      const secret = this.secrets.get(path);
      let verified = false;
      try {
        if (secret) verified = new Webhook(secret).verify(raw, headers) !== undefined;
      } catch {
        verified = false;
      }
      const earlier = this.at(path).length;
      this.received.push({
        path,
        id: headers['webhook-id'],
        timestamp: Number(headers['webhook-timestamp']),
        verified,
        body: JSON.parse(raw) as unknown,
        receivedAt: Date.now(),
      });
      const answer = this.answer(path, earlier);
      if (answer.hang) return;
      res.writeHead(answer.status ?? 200, answer.headers).end('ok');
    });
  }
}
