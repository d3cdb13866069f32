// Scripted OpenAI-compatible chat-completions server for tests and benchmarks: each request consumes the next
// scripted turn and is answered in OpenAI's own wire format (SSE chunks or JSON), so the real `openai` client parses
// it.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  MODEL_LIST,
  completionBody,
  completionChunks,
  errorBody,
  piecesOf,
  usageOf,
  type Completion,
} from './chat-completions-wire';
import { sendJson, sendWhole, sleep, streamFrames, type Emit } from './paced-response';

/** One scripted tool call; `arguments` is the raw JSON text and may be malformed on purpose. */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments: string;
}

/** What the server answers to one chat-completions request. */
export interface ScriptedTurn {
  content?: string;
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens?: number };
  finishReason?: 'stop' | 'tool_calls' | 'length';
  chunkSize?: number;
  delayMs?: number;
  firstChunkDelayMs?: number;
  error?: { status: number; body?: unknown; headers?: Record<string, string> };
  cutAfterChunks?: number;
  rawBody?: string;
  hangMs?: number;
}

/** Computes a turn from the request; `index` is the request's position in `requests` (0-based). */
export type ScriptedResponder = (req: RecordedRequest, index: number) => ScriptedTurn | Promise<ScriptedTurn>;

/** One chat-completions request as received (body parsed as JSON, or the raw text if it was not JSON). */
export interface RecordedRequest {
  // Request bodies are arbitrary JSON; tests index into them freely.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: Record<string, string | string[] | undefined>;
  receivedAt: number;
  path: string;
}

type Step = ScriptedTurn | ScriptedResponder;

/** A turn in which the assistant answers `content`. */
export function text(content: string, extra: Partial<ScriptedTurn> = {}): ScriptedTurn {
  return { content, ...extra };
}

/** A tool call; `args` is JSON-stringified unless it is already a string. */
export function toolCall(name: string, args: unknown, extra: Partial<ScriptedToolCall> = {}): ScriptedToolCall {
  return { name, arguments: typeof args === 'string' ? args : JSON.stringify(args), ...extra };
}

/** A turn in which the assistant calls the given tools. */
export function toolCalls(calls: ScriptedToolCall[], extra: Partial<ScriptedTurn> = {}): ScriptedTurn {
  return { toolCalls: calls, ...extra };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function firstSystemText(body: unknown): string | undefined {
  if (!isRecord(body) || !Array.isArray(body.messages)) return undefined;
  const sys: unknown = body.messages.find((m) => isRecord(m) && m.role === 'system');
  if (!isRecord(sys)) return undefined;
  if (typeof sys.content === 'string') return sys.content;
  if (!Array.isArray(sys.content)) return undefined;
  return sys.content.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join('');
}

/** An OpenAI-compatible HTTP server on a free local port that answers from a script and records every request. */
export class ScriptedModelServer {
  readonly requests: RecordedRequest[] = [];
  readonly unexpected: RecordedRequest[] = [];
  /** Indexes of the requests whose client closed the connection before the answer ended (a cancelled call). */
  readonly abandoned: number[] = [];
  /** Called right after each response chunk is handed to the socket. */
  onChunk?: (info: { requestIndex: number; chunkIndex: number; writtenAt: number; text: string }) => void;
  private readonly server = http.createServer();
  private readonly sockets = new Set<Socket>();
  private readonly queue: Step[] = [];
  private readonly keyed = new Map<string, Step[]>();
  private fallback: Step | undefined;
  private closing: Promise<void> | undefined;
  private seq = 0;

  private constructor(private readonly host: string) {
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    this.server.on('request', (req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (res.headersSent) res.destroy();
        else sendJson(res, 500, errorBody(500, `scripted model: ${err instanceof Error ? err.message : String(err)}`));
      });
    });
  }

  /** Starts a server on `host` (default 127.0.0.1) and a free port. */
  static async start(opts: { host?: string } = {}): Promise<ScriptedModelServer> {
    const s = new ScriptedModelServer(opts.host ?? '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      s.server.once('error', reject);
      s.server.listen(0, s.host, () => {
        s.server.off('error', reject);
        resolve();
      });
    });
    return s;
  }

  /** Base URL to pass to `new OpenAI({ baseURL })`, e.g. http://127.0.0.1:PORT/v1. */
  get baseURL(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://${this.host.includes(':') ? `[${this.host}]` : this.host}:${port}/v1`;
  }

  /** Queues turns for requests not routed by `scriptFor`; each request consumes the next one. */
  script(...turns: Step[]): this {
    this.queue.push(...turns);
    return this;
  }

  /** Queues turns for requests whose `model` equals `key` or whose first system message contains `key`. */
  scriptFor(key: string, ...turns: Step[]): this {
    const q = this.keyed.get(key) ?? [];
    q.push(...turns);
    this.keyed.set(key, q);
    return this;
  }

  /** Turn used when the request's queue is empty; without one, such requests get HTTP 500 and land in `unexpected`. */
  setDefault(turn: Step | undefined): void {
    this.fallback = turn;
  }

  /** Number of scripted turns not consumed yet, across all queues. */
  pending(): number {
    let n = this.queue.length;
    for (const q of this.keyed.values()) n += q.length;
    return n;
  }

  /** Forgets all scripts, the default turn, the `onChunk` hook and recorded requests. */
  reset(): void {
    this.queue.length = 0;
    this.keyed.clear();
    this.fallback = undefined;
    this.onChunk = undefined;
    this.requests.length = 0;
    this.unexpected.length = 0;
    this.abandoned.length = 0;
  }

  /** Stops listening and destroys every open connection, including hanging responses. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
      for (const socket of this.sockets) socket.destroy();
    });
    return this.closing;
  }

  private route(body: unknown): Step[] {
    if (isRecord(body) && typeof body.model === 'string' && this.keyed.has(body.model))
      return this.keyed.get(body.model)!;
    const system = firstSystemText(body);
    if (system !== undefined) for (const [key, q] of this.keyed) if (system.includes(key)) return q;
    return this.queue;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path.endsWith('/models')) {
      return sendJson(res, 200, MODEL_LIST);
    }
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      return sendJson(res, 404, errorBody(404, `scripted model: no route for ${req.method} ${path}`));
    }
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {
      /* keep the raw text */
    }
    const rec: RecordedRequest = { body, headers: { ...req.headers }, receivedAt: Date.now(), path };
    const index = this.requests.push(rec) - 1;
    res.once('close', () => {
      if (!res.writableFinished) this.abandoned.push(index);
    });
    if (!isRecord(body)) return sendJson(res, 400, errorBody(400, 'scripted model: request body is not a JSON object'));
    const step = this.route(body).shift() ?? this.fallback;
    if (step === undefined) {
      this.unexpected.push(rec);
      return sendJson(res, 500, errorBody(500, `scripted model: unexpected request #${index}`));
    }
    const turn = typeof step === 'function' ? await step(rec, index) : step;
    await this.respond(turn, body, index, res);
  }

  /** Plays one turn: its hang, then its scripted error or raw body, else its answer in the wire format asked for. */
  private async respond(
    turn: ScriptedTurn,
    body: Record<string, unknown>,
    index: number,
    res: http.ServerResponse,
  ): Promise<void> {
    await sleep(turn.hangMs, res);
    if (res.destroyed) return;
    if (turn.error) {
      const { status, headers } = turn.error;
      return sendJson(res, status, turn.error.body ?? errorBody(status, `scripted error ${status}`), headers);
    }
    const stream = body.stream === true;
    if (turn.rawBody !== undefined) {
      res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
      return void res.end(turn.rawBody);
    }
    const toolCalls = (turn.toolCalls ?? []).map((c) => ({ ...c, id: c.id ?? `call_${++this.seq}` }));
    const answer = {
      id: `chatcmpl-scripted-${index}`,
      created: Math.floor(Date.now() / 1000),
      model: typeof body.model === 'string' ? body.model : 'scripted-model',
      content: turn.content,
      reasoning: turn.reasoning,
      toolCalls,
      finishReason: turn.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    };
    const pieces = piecesOf(answer, turn.chunkSize ?? 4);
    const completion: Completion = { ...answer, usage: usageOf(turn.usage, pieces) };
    const emit: Emit = (chunkIndex, t) =>
      this.onChunk?.({ requestIndex: index, chunkIndex, writtenAt: Date.now(), text: t });
    if (!stream) return sendWhole(turn, completionBody(completion), turn.content ?? '', res, emit);
    const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
    return streamFrames(turn, completionChunks(completion, pieces, includeUsage), res, emit);
  }
}
