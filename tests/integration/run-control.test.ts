// Operator control of a loop on a real dev server (docs/ARCHITECTURE.md, "Workflow agents and operator control"; LoopAgent scenario 4): pause takes effect
// at the next safe point — before the next sub-agent, or at a sub-agent's next step — and parks there costing no
// worker CPU; resume goes on exactly there; RUN_PAUSED / RUN_RESUMED say who and why; the same works through the
// HTTP bridge and the Temporal CLI; cancelling the loop cancels the running sub-agent.
import { CancelledFailure, WorkflowFailedError, type Client } from '@temporalio/client';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { AgioClient, type RunHandle } from '../../client/agio-client';
import { loopAgent } from '../../common';
import { findBinary } from '../../devkit/install-binary';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { TEMPORAL_CLI } from '../../devkit/temporal-server';
import { recordedToolCalls, testTools } from '../fixtures/test-tools';
import { request } from '../helpers/bridge';
import { eventsNow, readStream } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';
import { testEnv } from '../helpers/test-env';
import {
  agentKey,
  agentOfRequest,
  agentStates,
  historyLength,
  requestsOfAgent,
  runChain,
  subAgent,
  waitFor,
} from '../helpers/workflow-agents';

const TOKEN = 'test-token';
const run = promisify(execFile);

/** A's answer streams for about three seconds (20 chunks, 150 ms apart): long enough to pause in the middle of it. */
const SLOW = { chunkSize: 2, delayMs: 150 };
const SLOW_TEXT = 'A thinks slowly, very slowly, so slowly';

/** Waits until the histories of `ids` have no workflow task pending, then returns their lengths. */
async function settledHistoryLengths(client: Client, ids: string[]): Promise<number[]> {
  return waitFor(`the histories of ${ids.join(', ')} to settle`, async () => {
    const lengths: number[] = [];
    for (const id of ids) {
      const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
      const lastTask = [...events]
        .reverse()
        .find(
          (e) =>
            e.workflowTaskScheduledEventAttributes ||
            e.workflowTaskStartedEventAttributes ||
            e.workflowTaskCompletedEventAttributes,
        );
      if (!lastTask?.workflowTaskCompletedEventAttributes) return undefined;
      lengths.push(events.length);
    }
    return lengths;
  });
}

describe('run control of a loop', () => {
  const bed = useTestBed({ tools: testTools, bridge: true });
  /** Resolves when the first chunk of the named agent's first request has been written. */
  let streaming: (name: string) => Promise<number>;
  /** When the last chunk of each agent's answers was written. */
  const lastChunkAt = new Map<string, number>();

  beforeEach(() => {
    lastChunkAt.clear();
    const waiting = new Map<string, (at: number) => void>();
    const seen = new Map<string, Promise<number>>();
    streaming = (name) => {
      if (!seen.has(name)) seen.set(name, new Promise<number>((resolve) => waiting.set(name, resolve)));
      return seen.get(name)!;
    };
    bed.server.onChunk = ({ requestIndex, writtenAt }) => {
      const name = agentOfRequest(bed.server.requests[requestIndex]);
      if (name) {
        lastChunkAt.set(name, writtenAt);
        void streaming(name);
        waiting.get(name)?.(writtenAt);
      }
    };
  });

  /** A loop [A, B] run once; A streams slowly. */
  async function startSlowLoop(name: string, via: AgioClient = bed.agio): Promise<RunHandle> {
    bed.server.scriptFor(agentKey('A'), text(SLOW_TEXT, SLOW));
    bed.server.scriptFor(agentKey('B'), text('B done'));
    return via.start(loopAgent({ name, subAgents: [subAgent('A'), subAgent('B')], maxIterations: 1 }), 'go');
  }

  it('parks before the next sub-agent when paused mid-stream, costs nothing while parked, and resumes exactly there (LoopAgent scenario 4)', async () => {
    const handle = await startSlowLoop('pausable');
    await streaming('A');
    const pausedAt = Date.now();

    const parked = await handle.pause({ reason: 'inspect the draft', by: 'alice' });

    // The pause was asked for while A was still streaming; it took effect only after A's call completed.
    expect(lastChunkAt.get('A')).toBeGreaterThan(pausedAt);
    expect(parked).toEqual({ paused: true, parked: true, pausedBy: 'alice', pauseReason: 'inspect the draft' });
    expect(await handle.state()).toMatchObject({
      status: 'running',
      kind: 'loop',
      paused: true,
      parked: true,
      timesLooped: 0,
      currentSubAgent: 'B',
      currentSubAgentIndex: 1,
      children: [],
    });
    expect(requestsOfAgent(bed.server, 'B')).toEqual([]);
    const events = await eventsNow(bed.client, handle.runId);
    expect(events.find((e) => e.type === 'RUN_PAUSED')).toMatchObject({
      depth: 0,
      runId: handle.runId,
      data: { reason: 'inspect the draft', by: 'alice' },
    });
    expect(events.find((e) => e.runId === `${handle.runId}/loop-0/0-A` && e.type === 'RUN_COMPLETED')).toMatchObject({
      data: { response: SLOW_TEXT },
    });
    expect(agentStates(events)).toEqual([{ timesLooped: 0, currentSubAgent: 'A' }]);

    // Parked: no workflow task in two seconds, and B has still not been asked.
    const [before] = await settledHistoryLengths(bed.client, [handle.runId]);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await historyLength(bed.client, handle.runId)).toBe(before);
    expect(requestsOfAgent(bed.server, 'B')).toEqual([]);

    const resumed = await handle.resume({ reason: 'looks fine', by: 'bob' });
    expect(resumed).toEqual({ paused: false, parked: false });
    const [all, output] = await Promise.all([readStream(bed.client, handle.runId), handle.result()]);

    expect(output).toMatchObject({ terminationReason: 'max_iterations', response: 'B done' });
    expect(bed.server.requests.map(agentOfRequest)).toEqual(['A', 'B']);
    const order = ['RUN_PAUSED', 'RUN_RESUMED', 'AGENT_STATE'].map((type) =>
      all.findIndex(
        (e) =>
          e.depth === 0 &&
          e.type === type &&
          (type !== 'AGENT_STATE' || (e.data as { currentSubAgent: string }).currentSubAgent === 'B'),
      ),
    );
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(all[order[1]]).toMatchObject({ type: 'RUN_RESUMED', data: { reason: 'looks fine', by: 'bob' } });
    expect(all.filter((e) => e.type === 'RUN_PAUSED')).toHaveLength(1);
    expect(agentStates(all)).toEqual([
      { timesLooped: 0, currentSubAgent: 'A' },
      { timesLooped: 0, currentSubAgent: 'B' },
    ]);
  });

  it('pauses the whole tree: the update returns once the running sub-agent has parked at its next step, and nothing runs while paused', async () => {
    bed.server.scriptFor(
      agentKey('A'),
      toolCalls([toolCall('record', { label: 'before the pause' })], { chunkSize: 1, delayMs: 100 }),
      text('A after the pause'),
    );
    bed.server.scriptFor(agentKey('B'), text('B done'));
    const handle = await bed.agio.start(
      loopAgent({ name: 'tree', subAgents: [subAgent('A', { tools: ['record'] }), subAgent('B')], maxIterations: 1 }),
      'go',
    );
    const childId = `${handle.runId}/loop-0/0-A`;
    await streaming('A');

    const parked = await handle.pause({ reason: 'freeze', by: 'ops' });

    // By the time the update answered, the child had parked and published its RUN_PAUSED at depth 1.
    const events = await eventsNow(bed.client, handle.runId);
    expect(parked).toEqual({ paused: true, parked: true, pausedBy: 'ops', pauseReason: 'freeze' });
    expect(events.find((e) => e.type === 'RUN_PAUSED')).toMatchObject({
      runId: childId,
      depth: 1,
      data: { reason: 'freeze', by: 'ops' },
    });
    expect(await bed.agio.getHandle(childId).state()).toMatchObject({
      kind: 'llm',
      paused: true,
      parked: true,
      modelCalls: 1,
    });
    expect(await handle.state()).toMatchObject({
      paused: true,
      parked: true,
      currentSubAgent: 'A',
      children: [childId],
    });
    // A finished its first step (the tool ran) and stopped before asking the model again.
    expect(recordedToolCalls.filter((c) => c.runId === childId).map((c) => c.label)).toEqual(['before the pause']);
    expect(requestsOfAgent(bed.server, 'A')).toHaveLength(1);

    const before = await settledHistoryLengths(bed.client, [handle.runId, childId]);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect([await historyLength(bed.client, handle.runId), await historyLength(bed.client, childId)]).toEqual(before);
    expect(requestsOfAgent(bed.server, 'A')).toHaveLength(1);

    await handle.resume({ by: 'ops' });
    const [all, output] = await Promise.all([readStream(bed.client, handle.runId), handle.result()]);

    expect(output).toMatchObject({ terminationReason: 'max_iterations', response: 'B done' });
    expect(bed.server.requests.map(agentOfRequest)).toEqual(['A', 'A', 'B']);
    // The child was paused and resumed by its parent, on behalf of the operator.
    expect(all.filter((e) => e.type === 'RUN_RESUMED')).toEqual([
      expect.objectContaining({ runId: childId, depth: 1, data: { by: 'ops', reason: 'resume of parent' } }),
    ]);
  });

  it('holds a pause asked for during the last sub-agent of an iteration across continue-as-new', async () => {
    bed.server.scriptFor(agentKey('A'), text(SLOW_TEXT, SLOW), text('A two'));
    const handle = await bed.agio.start(
      loopAgent({ name: 'pause-then-continue', subAgents: [subAgent('A')], maxIterations: 2, continueAsNewEvery: 1 }),
      'go',
    );
    await streaming('A');

    const parked = await handle.pause({ reason: 'hold', by: 'ops' });

    expect(parked).toMatchObject({ paused: true, parked: true });
    expect(await handle.state()).toMatchObject({ paused: true, parked: true, timesLooped: 1 });
    const [before] = await settledHistoryLengths(bed.client, [handle.runId]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await historyLength(bed.client, handle.runId)).toBe(before);
    expect(requestsOfAgent(bed.server, 'A')).toHaveLength(1);

    await handle.resume({ by: 'ops' });
    const [events, output] = await Promise.all([readStream(bed.client, handle.runId), handle.result()]);

    expect(output).toMatchObject({ terminationReason: 'max_iterations', response: 'A two' });
    expect(agentStates(events)).toEqual([
      { timesLooped: 0, currentSubAgent: 'A' },
      { timesLooped: 1, currentSubAgent: 'A' },
    ]);
    expect(events.filter((e) => e.type === 'RUN_PAUSED' || e.type === 'RUN_RESUMED').map((e) => e.type)).toEqual([
      'RUN_PAUSED',
      'RUN_RESUMED',
    ]);
    expect((await runChain(bed.client, handle.runId)).map((r) => r.status)).toEqual(['CONTINUED_AS_NEW', 'COMPLETED']);
  });

  it('holds a pause of an agent run that is about to continue as new, and resumes into the new run', async () => {
    bed.server.scriptFor(
      agentKey('solo'),
      toolCalls([toolCall('record', { label: 'step one' })], { chunkSize: 1, delayMs: 100 }),
      text('solo done'),
    );
    const handle = await bed.agio.start(subAgent('solo', { tools: ['record'] }), 'go', {
      limits: { continueAsNewAfterModelCalls: 1 },
    });
    await streaming('solo');

    const parked = await handle.pause({ reason: 'hold', by: 'ops' });

    expect(parked).toMatchObject({ paused: true, parked: true });
    expect(await handle.state()).toMatchObject({ kind: 'llm', paused: true, parked: true, modelCalls: 1 });
    expect(requestsOfAgent(bed.server, 'solo')).toHaveLength(1);
    await handle.resume({ by: 'ops' });
    const [events, output] = await Promise.all([readStream(bed.client, handle.runId), handle.result()]);

    expect(output).toMatchObject({ terminationReason: 'completed', response: 'solo done' });
    expect(events.filter((e) => e.type === 'RUN_PAUSED' || e.type === 'RUN_RESUMED').map((e) => e.type)).toEqual([
      'RUN_PAUSED',
      'RUN_RESUMED',
    ]);
    expect((await runChain(bed.client, handle.runId)).map((r) => r.status)).toEqual(['CONTINUED_AS_NEW', 'COMPLETED']);
  });

  it('answers a pause asked for while the run finishes, instead of leaving it waiting', async () => {
    bed.server.scriptFor(agentKey('A'), text(SLOW_TEXT, SLOW));
    const handle = await bed.agio.start(
      loopAgent({ name: 'finishes-while-pausing', subAgents: [subAgent('A')], maxIterations: 1 }),
      'go',
    );
    await streaming('A');

    const answer = await handle.pause({ reason: 'too late', by: 'ops' }).then(
      (state) => ({ state }),
      (err: Error) => ({ err: `${err.name}: ${err.message}` }),
    );

    expect(answer).toEqual({ state: { paused: false, parked: false, finished: true } });
    expect(await handle.result()).toMatchObject({ terminationReason: 'max_iterations' });
  });

  it('cancels the running sub-agent with the loop and ends the stream with RUN_CANCELLED at depth 0', async () => {
    bed.server.scriptFor(agentKey('A'), text('never finished', { hangMs: 60_000 }));
    const handle = await bed.agio.start(
      loopAgent({ name: 'cancelled', subAgents: [subAgent('A'), subAgent('B')], maxIterations: 1 }),
      'go',
    );
    const childId = `${handle.runId}/loop-0/0-A`;
    await waitFor("A's model request", () => requestsOfAgent(bed.server, 'A').length === 1);
    const reading = readStream(bed.client, handle.runId);

    await handle.cancel();

    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect((await bed.client.workflow.getHandle(childId).describe()).status.name).toBe('CANCELLED');
    expect((await handle.workflow.describe()).status.name).toBe('CANCELLED');
    const events = await reading;
    expect(events.at(-1)).toMatchObject({ type: 'RUN_CANCELLED', depth: 0, runId: handle.runId });
    expect(events.filter((e) => e.type === 'RUN_CANCELLED').map((e) => [e.runId, e.depth])).toEqual([
      [childId, 1],
      [handle.runId, 0],
    ]);
    expect(requestsOfAgent(bed.server, 'B')).toEqual([]);
    expect(await handle.state()).toMatchObject({ status: 'cancelled' });
  });

  describe('through the HTTP bridge', () => {
    it('pauses with POST /runs/:id/pause (200 once parked), shows GET /runs/:id/state, and resumes with POST /runs/:id/resume', async () => {
      const handle = await startSlowLoop('over-http', bed.bridge.agio);
      await streaming('A');

      const paused = await request(`${bed.bridge.url}/runs/${handle.runId}/pause`, {
        token: TOKEN,
        body: { reason: 'http pause' },
      });
      expect(paused).toEqual({
        status: 200,
        body: { paused: true, parked: true, pausedBy: 'api:default', pauseReason: 'http pause' },
      });
      const state = await request(`${bed.bridge.url}/runs/${handle.runId}/state`, { token: TOKEN });
      expect(state).toMatchObject({
        status: 200,
        body: {
          runId: handle.runId,
          kind: 'loop',
          status: 'running',
          paused: true,
          parked: true,
          currentSubAgent: 'B',
          timesLooped: 0,
        },
      });
      expect(requestsOfAgent(bed.server, 'B')).toEqual([]);

      const resumed = await request(`${bed.bridge.url}/runs/${handle.runId}/resume`, {
        token: TOKEN,
        body: { reason: 'http resume' },
      });
      expect(resumed).toEqual({ status: 200, body: { paused: false, parked: false } });
      const [events, output] = await Promise.all([readStream(bed.client, handle.runId), handle.result()]);

      expect(output.response).toBe('B done');
      expect(events.find((e) => e.type === 'RUN_PAUSED')).toMatchObject({
        depth: 0,
        data: { reason: 'http pause', by: 'api:default' },
      });
      expect(events.find((e) => e.type === 'RUN_RESUMED')).toMatchObject({
        depth: 0,
        data: { reason: 'http resume', by: 'api:default' },
      });
      expect(await request(`${bed.bridge.url}/runs/${handle.runId}/pause`, { token: TOKEN, body: {} })).toMatchObject({
        status: 409,
        body: { error: { code: 'run_not_running' } },
      });
    });
  });

  describe('through the Temporal CLI', () => {
    const temporal = (...args: string[]) =>
      run(findBinary(TEMPORAL_CLI)!, [...args, '--address', testEnv('temporalAddress')], { timeout: 30_000 });

    it('pauses with `temporal workflow signal --name pause`, reads `--type state` and resumes with `--name resume`', async () => {
      const handle = await startSlowLoop('over-cli');
      await streaming('A');

      await temporal(
        'workflow',
        'signal',
        '--workflow-id',
        handle.runId,
        '--name',
        'pause',
        '--input',
        '{"reason":"cli","by":"ops"}',
      );
      const state = await waitFor('the CLI to report the run parked', async () => {
        const { stdout } = await temporal(
          'workflow',
          'query',
          '--workflow-id',
          handle.runId,
          '--type',
          'state',
          '--output',
          'json',
        );
        const parsed = JSON.parse(stdout) as { queryResult: { paused: boolean; parked: boolean }[] };
        return parsed.queryResult[0].parked ? parsed.queryResult[0] : undefined;
      });
      expect(state).toMatchObject({
        paused: true,
        parked: true,
        pausedBy: 'ops',
        pauseReason: 'cli',
        currentSubAgent: 'B',
        kind: 'loop',
      });
      expect(requestsOfAgent(bed.server, 'B')).toEqual([]);

      await temporal(
        'workflow',
        'signal',
        '--workflow-id',
        handle.runId,
        '--name',
        'resume',
        '--input',
        '{"by":"ops"}',
      );
      const [events, output] = await Promise.all([readStream(bed.client, handle.runId), handle.result()]);

      expect(output.response).toBe('B done');
      expect(events.find((e) => e.type === 'RUN_PAUSED')).toMatchObject({
        depth: 0,
        data: { reason: 'cli', by: 'ops' },
      });
      expect(events.find((e) => e.type === 'RUN_RESUMED')).toMatchObject({ depth: 0, data: { by: 'ops' } });
    });
  });
});
