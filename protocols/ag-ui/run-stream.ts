// One AG-UI run's event stream over a durable Agio run: the tree is read from its start through the mapper, which keeps
// what is open (messages, steps, subagents, waiting calls); events the client already has (before the run's starting
// position, or up to its Last-Event-ID) update the mapper silently, the rest are sent in frames, each with the tree
// cursor after its Agio event as its id. The AG-UI run ends with the root's end, or with an interrupt once calls wait
// for a decision and the tree has been quiet for a moment; the durable run goes on waiting and the next AG-UI run that
// answers the interrupts continues it.
import type { Event as AgUiEvent } from '@ag-ui/core';
import { EventType } from '@ag-ui/core';
import type { RunHandle } from '../../client/run-handle';
import type { LiveLane } from '../../live/lane';
import { encodeCursor, hasEvent, joinCursors, type TreeCursor } from '../../client/tree-cursor';
import { typedEvent, type WireEvent } from '../../common';
import { AgUiMapper } from './event-mapper';
import { approvalInterrupt, pauseInterrupt } from './interrupts';
import { LANE, LaneDeltas } from './lane-deltas';

/** The AG-UI events sent together, and the id a client that has them resumes after (none: the opening frame). */
export interface AgUiFrame {
  events: AgUiEvent[];
  id?: string;
}

/** Options of {@link streamAgUiRun}. */
export interface AgUiStreamOptions {
  handle: RunHandle;
  rootRunId: string;
  threadId: string;
  /** The AG-UI run id (as the client sent it). */
  runId: string;
  /** The position this AG-UI run starts after (an interrupted run's end, or the start). */
  from: TreeCursor;
  /** A reconnecting client's Last-Event-ID: the frames up to it are not sent again (nor the opening). */
  lastEventId?: TreeCursor;
  signal: AbortSignal;
  /** The names of the client's own tools (RunAgentInput.tools): a run waiting only on them ends this AG-UI run. */
  clientTools?: string[];
  /** Client tool calls this request answered: events up to their waits were sent before, and are not again. */
  answered?: string[];
  /** How long the tree stays quiet, with calls waiting, before the AG-UI run ends with an interrupt (default 1 s). */
  settleMs?: number;
  /** The live lane the workers stream model calls' deltas on: merged in as they come (without one, the log's). */
  lane?: LiveLane;
}

const SETTLED = Symbol('settled');

/** Resolves with `promise`, or with SETTLED after `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof SETTLED> {
  let timer: NodeJS.Timeout | undefined;
  const settled = new Promise<typeof SETTLED>((resolve) => (timer = setTimeout(() => resolve(SETTLED), ms)));
  try {
    return await Promise.race([promise, settled]);
  } finally {
    clearTimeout(timer);
  }
}

/** Yields the frames of one AG-UI run (see the file comment). */
export async function* streamAgUiRun(opts: AgUiStreamOptions): AsyncGenerator<AgUiFrame> {
  const { handle, rootRunId, threadId, runId } = opts;
  const mapper = new AgUiMapper({ threadId, runId, rootRunId }, new Set(opts.clientTools));
  const has = opts.lastEventId ? joinCursors(opts.from, opts.lastEventId) : opts.from;
  /** Answered client tool calls whose wait this AG-UI run has not passed yet: what comes before is the client's. */
  const answered = new Set(opts.answered);
  const resumed = opts.lastEventId !== undefined;
  if (!resumed) yield { events: mapper.started() };
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  opts.signal.addEventListener('abort', onAbort, { once: true });
  const events = handle.positioned({ signal: stop.signal, maxPollMs: 250 })[Symbol.asyncIterator]();
  const lane = new LaneDeltas(opts.lane, rootRunId);
  /** The held lane deltas that fit now, mapped (none while the client's part is replayed silently). */
  const laneFrame = (): AgUiEvent[] =>
    silent || mapper.ended
      ? []
      : lane.take().flatMap((d) => (mapper.knows(d.runId) ? mapper.map(typedEvent(d as WireEvent)) : []));
  let silent = true;
  let at = encodeCursor(has);
  /** The subagents the client must be told of again, before the first frame it did not have. */
  const leaveSilence = (): AgUiEvent[] => {
    if (!silent) return [];
    silent = false;
    mapper.resetUsage();
    return resumed ? [] : mapper.reopened();
  };
  try {
    let next = events.next();
    for (;;) {
      const waiting =
        mapper.pending.length > 0 || mapper.paused.length > 0 || (mapper.waitingOnClient.length > 0 && !silent);
      // While the client's part is replayed silently, deltas wait: the first frame it lacks lets them through.
      const either = silent ? next : Promise.race([next, lane.arrived()]);
      const read = waiting ? await within(either, opts.settleMs ?? 1000) : await either;
      if (read === LANE) {
        // Deltas carry no id: a client resuming with Last-Event-ID gets the open step again from the log.
        const out = laneFrame();
        if (out.length) yield { events: out };
        continue;
      }
      if (read === SETTLED) {
        const interrupts = mapper.pending.map((p) =>
          approvalInterrupt(p, rootRunId, at, p.runId === rootRunId ? undefined : p.runId),
        );
        // A paused tree (an operator, a budget) ends the AG-UI run too: one interrupt says so, whichever runs paused.
        const [paused] = mapper.paused;
        if (paused) interrupts.push(pauseInterrupt(paused, rootRunId, at));
        yield { events: mapper.suspend(interrupts, leaveSilence()), id: at };
        return;
      }
      if (read.done) {
        if (!mapper.ended)
          yield { events: [...leaveSilence(), { type: EventType.RUN_ERROR, message: 'the run stream ended early' }] };
        return;
      }
      next = events.next();
      const { event, path, cursor } = read.value;
      lane.saw(event);
      const out = mapper.map(typedEvent(event));
      at = encodeCursor(cursor);
      const had = hasEvent(has, path, event.offset) || (answered.size > 0 && !mapper.ended);
      if (event.type === 'TOOL_CALLBACK_WAITING') answered.delete((event.data as { toolCallId: string }).toolCallId);
      if (had) continue;
      const reopen = leaveSilence();
      if (out.length || reopen.length) yield { events: [...reopen, ...out], id: at };
      if (mapper.ended) return;
      const live = laneFrame();
      if (live.length) yield { events: live };
    }
  } catch (err) {
    if (!opts.signal.aborted)
      yield { events: [{ type: EventType.RUN_ERROR, message: (err as Error).message, code: (err as Error).name }] };
  } finally {
    opts.signal.removeEventListener('abort', onAbort);
    stop.abort();
    lane.close();
    void events.return(undefined).catch(() => undefined);
  }
}
