// Writing a response at a scripted pace: delays before each chunk, and responses cut off part-way, so tests can see
// how clients handle slow, stalled and broken model streams. Every wait ends early once the response is closed.
import type http from 'node:http';
import { SSE_DONE, sseEvent, type Frame } from './chat-completions-wire';

/** When chunks go out: before the first, before each later one, and how many before the connection drops. */
export interface Pacing {
  firstChunkDelayMs?: number;
  delayMs?: number;
  cutAfterChunks?: number;
}

/** Reports one written chunk (its index in the response and the text it carried). */
export type Emit = (chunkIndex: number, text: string) => void;

/** Waits `ms`, but returns early once the response is closed (client gone or server closing). */
export function sleep(ms: number | undefined, res: http.ServerResponse): Promise<void> {
  if (!ms || ms <= 0 || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    res.once('close', done);
  });
}

/** Writes and waits until the data is handed to the socket (or the response is gone). */
function write(res: http.ServerResponse, data: string): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('close', done);
      resolve();
    };
    res.once('close', done);
    res.write(data, done);
  });
}

/** Sends `payload` as a complete JSON response, right away. */
export function sendJson(
  res: http.ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): void {
  const json = JSON.stringify(payload);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

/** Sends `payload` as one JSON body; with `cutAfterChunks` only its first half goes out before the connection drops. */
export async function sendWhole(
  pacing: Pacing,
  payload: unknown,
  text: string,
  res: http.ServerResponse,
  emit: Emit,
): Promise<void> {
  await sleep(pacing.firstChunkDelayMs, res);
  if (res.destroyed) return;
  if (pacing.cutAfterChunks === undefined) {
    sendJson(res, 200, payload);
    return emit(0, text);
  }
  const json = JSON.stringify(payload);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
  await write(res, json.slice(0, Math.floor(json.length / 2)));
  res.destroy();
}

/** Streams the frames as SSE; with `cutAfterChunks` the connection drops after that many, without the closing event. */
export async function streamFrames(
  pacing: Pacing,
  frames: Frame[],
  res: http.ServerResponse,
  emit: Emit,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
  const count = Math.min(frames.length, pacing.cutAfterChunks ?? Infinity);
  for (let i = 0; i < count; i++) {
    await sleep(i === 0 ? pacing.firstChunkDelayMs : pacing.delayMs, res);
    if (res.destroyed) return;
    await write(res, sseEvent(frames[i].data));
    emit(i, frames[i].text);
  }
  if (pacing.cutAfterChunks !== undefined) return void res.destroy();
  res.end(SSE_DONE);
}
