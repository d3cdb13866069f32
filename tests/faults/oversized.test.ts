// Oversized data never puts a run into a workflow-task failure loop: a 5 MB tool output is cut to the run's
// maxToolOutputBytes (with a record of the cut) before it reaches the history; a run input over maxModelInputBytes is
// refused before anything starts (AgioClient and POST /runs answer clearly); and a conversation that grows over it
// fails the run with ModelInputTooLarge before the oversized model call is scheduled.
import type { WorkflowHandle } from '@temporalio/client';
import { z } from 'zod';
import { defineTool } from '../../activities/tools/define-tool';
import { InputTooLargeError } from '../../client/agio-client';
import { defineAgent, ErrorType, type AgioEvent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { request } from '../helpers/bridge';
import { expectWholeStream } from '../helpers/nested-runs';
import { agioEvents, readSse } from '../helpers/sse-client';
import { useTestBed } from '../helpers/test-bed';

const TOKEN = 'test-token';
const FIVE_MB = 5 * 1024 * 1024;
const DEFAULT_MAX_MODEL_INPUT = 1024 * 1024;

const fiveMegabyteTool = defineTool({
  name: 'dump',
  description: 'Answers with 5 MB of text.',
  parameters: z.object({}),
  idempotent: true,
  async execute() {
    return 'x'.repeat(FIVE_MB);
  },
});

/** Event types of a history that mean a workflow task failed or timed out. */
async function failedWorkflowTasks(handle: WorkflowHandle): Promise<number> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).filter(
    (e) => e.workflowTaskFailedEventAttributes || e.workflowTaskTimedOutEventAttributes,
  ).length;
}

describe('oversized tool output and model input', () => {
  const bed = useTestBed({
    tools: [...testTools, fiveMegabyteTool],
    bridge: true,
    agents: [defineAgent({ name: 'named' })],
  });

  async function streamOf(runId: string): Promise<AgioEvent[]> {
    const { events, closedBy } = await readSse(`${bed.bridge.url}/runs/${runId}/events`, {
      token: TOKEN,
      timeoutMs: 45_000,
    });
    expect(closedBy).toBe('server');
    return agioEvents(events);
  }

  it('cuts a 5 MB tool output to maxToolOutputBytes with a record of the cut, and completes without a failed workflow task', async () => {
    bed.server.script(toolCalls([toolCall('dump', {}, { id: 'call_dump' })]), text('read the dump'));
    const run = await bed.bridge.agio.start(defineAgent({ name: 'dumper', tools: ['dump'] }), 'dump it');
    const events = await streamOf(run.runId);

    expectWholeStream(events, run.runId);
    const tool = events.find((e) => e.type === 'STEP_COMPLETED' && e.snapshot?.role === 'tool')!.snapshot!;
    expect(Buffer.byteLength(tool.content!)).toBeLessThanOrEqual(64 * 1024);
    expect(tool.metadata).toMatchObject({ truncated: true, originalBytes: FIVE_MB });
    expect(Buffer.byteLength(JSON.stringify(bed.server.requests[1].body))).toBeLessThan(100 * 1024);
    expect(await failedWorkflowTasks(run.workflow)).toBe(0);
  });

  it('refuses a run input over maxModelInputBytes in AgioClient.start, before anything runs', async () => {
    const input = 'y'.repeat(DEFAULT_MAX_MODEL_INPUT);
    const err = await bed.agio.start(defineAgent({ name: 'reader' }), input).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(InputTooLargeError);
    expect((err as Error).message).toBe(
      `the run input is ${DEFAULT_MAX_MODEL_INPUT + 2} bytes, over the run's maxModelInputBytes of ${DEFAULT_MAX_MODEL_INPUT}: shorten it, or raise the limit (Temporal payloads are capped at 2 MiB)`,
    );
    expect(bed.server.requests).toHaveLength(0);
  });

  it('answers POST /runs with 413 for an input over the limit and for a body over the bridge body limit', async () => {
    const overLimit = await request(`${bed.bridge.url}/runs`, {
      token: TOKEN,
      body: { agent: 'named', input: 'z'.repeat(1_500_000) },
    });
    expect(overLimit.status).toBe(413);
    expect(overLimit.body).toEqual({
      error: {
        code: 'input_too_large',
        message: expect.stringMatching(/^the run input is 1500002 bytes, over the run's maxModelInputBytes of 1048576/),
      },
    });

    const overBody = await request(`${bed.bridge.url}/runs`, {
      token: TOKEN,
      body: { agent: 'named', input: 'z'.repeat(3_000_000) },
    });
    expect(overBody.status).toBe(413);
    expect(overBody.body).toEqual({ error: { code: 'body_too_large', message: expect.any(String) } });
    expect(bed.server.requests).toHaveLength(0);
  });

  it('fails a run whose conversation grows over the default limit with ModelInputTooLarge, before the oversized call', async () => {
    // The input fits (1,000,002 bytes as JSON); with four tool results of 60 kB the next call would not.
    bed.server.script(
      toolCalls([0, 1, 2, 3].map((i) => toolCall('big_output', { bytes: 60_000 }, { id: `call_big_${i}` }))),
    );
    const run = await bed.bridge.agio.start(
      defineAgent({ name: 'hoarder', tools: ['big_output'] }),
      'w'.repeat(1_000_000),
    );
    const events = await streamOf(run.runId);

    expectWholeStream(events, run.runId, 'RUN_FAILED');
    expect(events.at(-1)?.data).toMatchObject({
      error: {
        type: ErrorType.ModelInputTooLarge,
        message: expect.stringMatching(
          /the conversation of agent "hoarder" is \d+ bytes, over the run's maxModelInputBytes of 1048576/,
        ),
      },
    });
    expect(events.filter((e) => e.type === 'STEP_COMPLETED' && e.snapshot?.role === 'tool')).toHaveLength(4);
    expect(bed.server.requests).toHaveLength(1);
    expect((await run.workflow.describe()).status.name).toBe('FAILED');
    expect(await failedWorkflowTasks(run.workflow)).toBe(0);
  });
});
