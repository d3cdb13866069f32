// Helpers for integration tests of the bridge's AG-UI endpoint: the real @ag-ui/client HttpAgent pointed at an agent,
// a run of it that records every event it applied, a raw SSE reader that keeps each frame's id and can drop the
// connection at a chosen event (what a client whose network fails sees), and the event types of a text or tool step.
import { HttpAgent, type BaseEvent, type Message, type RunAgentParameters } from '@ag-ui/client';
import type { TestBridge } from './bridge';

/** An HttpAgent for agent `name` on the bridge, on `threadId`, with the bridge's bearer token. */
export function agUiAgent(bridge: TestBridge, name: string, threadId: string, messages: Message[] = []): HttpAgent {
  return new HttpAgent({
    url: `${bridge.url}/ag-ui/agents/${name}`,
    headers: { authorization: `Bearer ${bridge.token}` },
    threadId,
    initialMessages: messages,
  });
}

/** Runs the agent once; resolves with the events it applied (in order) and the run's result. */
export async function runRecorded(
  agent: HttpAgent,
  params: RunAgentParameters,
): Promise<{ events: BaseEvent[]; result: unknown }> {
  const events: BaseEvent[] = [];
  const { result } = await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) });
  return { events, result };
}

/** One SSE frame of a raw read: its event and the id it carried, if any. */
export interface RawFrame {
  id?: string;
  event: BaseEvent;
}

/**
 * POSTs `body` to an AG-UI endpoint and reads its SSE frames until the stream ends, or until `dropAt` says so, when the
 * connection is dropped (the request aborted) right after that frame. `accept`: the Accept header (default SSE's).
 */
export async function readRaw(
  url: string,
  token: string,
  body: unknown,
  opts: { lastEventId?: string; dropAt?: (frame: RawFrame) => boolean; accept?: string } = {},
): Promise<{ status: number; frames: RawFrame[]; dropped: boolean }> {
  const abort = new AbortController();
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: opts.accept ?? 'text/event-stream',
      ...(opts.lastEventId ? { 'last-event-id': opts.lastEventId } : {}),
    },
    body: JSON.stringify(body),
    signal: abort.signal,
  });
  const frames: RawFrame[] = [];
  let dropped = false;
  if (!res.body) return { status: res.status, frames, dropped };
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block.split('\n').find((l) => l.startsWith('data: '));
        if (!data) continue;
        const id = block
          .split('\n')
          .find((l) => l.startsWith('id: '))
          ?.slice(4);
        const frame = { ...(id ? { id } : {}), event: JSON.parse(data.slice(6)) as BaseEvent };
        frames.push(frame);
        if (opts.dropAt?.(frame)) {
          dropped = true;
          abort.abort();
          return { status: res.status, frames, dropped };
        }
      }
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err;
  }
  return { status: res.status, frames, dropped };
}

/** The AG-UI event types of one model step that answers with text. */
export const TEXT_STEP = [
  'STEP_STARTED',
  'TEXT_MESSAGE_START',
  'TEXT_MESSAGE_CONTENT',
  'TEXT_MESSAGE_END',
  'STEP_FINISHED',
];

/** The AG-UI event types of one model step that calls one tool. */
export const TOOL_CALL_STEP = ['STEP_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'STEP_FINISHED'];
