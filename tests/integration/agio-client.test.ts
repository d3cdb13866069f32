// AgioClient against a real worker: runStream ends after the terminal event, stream({ after }) resumes,
// result() and state() answer, and cancel()/a failing model call end the stream with RUN_CANCELLED/RUN_FAILED.
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { getEventListeners } from 'node:events';
import { defineAgent, ErrorType, resolveLimits, type AgentRunInput, type AgioEvent } from '../../common';
import { text } from '../../devkit/scripted-model-server';
import { heldAnswer, startInput } from '../helpers/agent-runs';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

async function collect(events: AsyncIterable<AgioEvent>, stopAfter = Infinity): Promise<AgioEvent[]> {
  const out: AgioEvent[] = [];
  for await (const event of events) {
    out.push(event);
    if (out.length >= stopAfter) break;
  }
  return out;
}

function expectContiguous(events: AgioEvent[], from = 0): void {
  expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => from + i));
}

describe('AgioClient', () => {
  const helper = defineAgent({ name: 'helper' });
  const bed = useTestBed({ agents: [helper] });

  it('runStream yields the run from RUN_STARTED to RUN_COMPLETED and ends after it', async () => {
    // Longer than the first delta's hold.
    bed.server.script(text('streamed through the client', { chunkSize: 5, delayMs: 10 }));

    const events = await collect(bed.agio.runStream('helper', 'hello'));

    expectContiguous(events);
    expect(events[0]).toMatchObject({ type: 'RUN_STARTED', depth: 0, agent: 'helper' });
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_COMPLETED',
      depth: 0,
      data: { response: 'streamed through the client' },
    });
    expect(
      events
        .filter((e) => e.type === 'STEP_DELTA')
        .map((e) => e.delta?.content)
        .join(''),
    ).toBe('streamed through the client');
  });

  it('start() + stream({ after }) resumes after an offset; result() and state() answer while running and after', async () => {
    const { answer, release } = heldAnswer(text('resumed answer', { chunkSize: 2, delayMs: 2 }));
    bed.server.script(answer);
    const run = await bed.agio.start(helper, 'resume me', { tenant: 'acme' });

    const head = await collect(run.stream(), 2);
    const running = await run.state();
    release();
    const tail = await collect(run.stream({ after: head.at(-1)!.offset }));
    const output = await run.result();
    const done = await run.state();

    expect(head.map((e) => e.type)).toEqual(['RUN_STARTED', 'STEP_COMPLETED']);
    expect(running).toMatchObject({
      runId: run.runId,
      agent: 'helper',
      status: 'running',
      modelCalls: 0,
      runningTools: [],
    });
    expectContiguous([...head, ...tail]);
    expect(tail.at(-1)?.type).toBe('RUN_COMPLETED');
    expect(output).toMatchObject({ runId: run.runId, response: 'resumed answer', terminationReason: 'completed' });
    expect(done).toMatchObject({ status: 'completed', modelCalls: 1, currentStep: 2 });
    expect((await run.workflow.describe()).memo).toEqual({ tenant: 'acme', agent: 'helper' });
  });

  it("follows a quiet run with the caller's abort signal without piling up listeners on it", async () => {
    const { answer, release } = heldAnswer(text('finally'));
    bed.server.script(answer);
    const run = await bed.agio.start(helper, 'be quiet for a while');
    const abort = new AbortController();

    // After the first two events the model stays silent for a second: dozens of empty polls, each sleeping on the
    // signal.
    const events: AgioEvent[] = [];
    for await (const event of run.stream({ signal: abort.signal, maxPollMs: 20 })) {
      if (events.push(event) === 2) setTimeout(release, 1000);
    }

    expect(events.at(-1)?.type).toBe('RUN_COMPLETED');
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(0);
  });

  it('cancel() of a run blocked in a slow model stream ends its stream with RUN_CANCELLED at depth 0', async () => {
    bed.server.script(text('slow '.repeat(100), { chunkSize: 1, delayMs: 50 }));
    const run = await bed.agio.start(helper, 'take your time');

    const events: AgioEvent[] = [];
    for await (const event of run.stream()) {
      events.push(event);
      if (event.type === 'STEP_DELTA' && events.filter((e) => e.type === 'STEP_DELTA').length === 1) await run.cancel();
    }

    expectContiguous(events);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_CANCELLED', depth: 0, runId: run.runId });
    expect(events.filter((e) => e.type === 'RUN_COMPLETED')).toEqual([]);
    const err = await run.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect((await run.state()).status).toBe('cancelled');
    // The cancelled model call stops soon: it neither streams on nor retries delta batches its closed run rejects.
    await waitFor(
      'the cancelled call to leave the worker',
      () => bed.worker.worker.getStatus().numInFlightActivities === 0,
      5000,
    );
    expect(bed.server.requests).toHaveLength(1);
  });

  it('ends the stream with RUN_FAILED when the model call fails with a 401', async () => {
    bed.server.script({ error: { status: 401 } });

    const events = await collect(bed.agio.runStream('helper', 'hi'));

    expectContiguous(events);
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_FAILED',
      depth: 0,
      data: { error: { type: ErrorType.ModelAuthError } },
    });
  });

  it("resolves a run's limits when it starts and sends them whole, so a later release's defaults never reach it", async () => {
    bed.server.script(text('limited'));
    const capped = defineAgent({ name: 'capped', limits: { maxToolOutputBytes: 1000 }, maxSteps: 4 });
    const run = await bed.agio.start(capped, 'hi', { limits: { maxTotalTokens: 5000 } });
    await run.result();

    const input = startInput<AgentRunInput>(await run.workflow.fetchHistory());
    // Every limit is in the input: the defaults of this release, then the agent's, then the run's own.
    expect(input.context?.limits).toEqual({
      ...resolveLimits(),
      maxToolOutputBytes: 1000,
      maxSteps: 4,
      maxTotalTokens: 5000,
    });
  });
});
