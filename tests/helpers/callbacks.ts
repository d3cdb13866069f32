// Helpers for integration tests of callback tools (docs/ARCHITECTURE.md, "Callback tools"): two callback tools whose
// starts note the URL and token they were given, the test bed options that give a worker and its bridge one callback
// secret, and a wait for a call's TOOL_CALLBACK_WAITING in a root's stream.
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import type { AgioEvent, ToolCallbackWaitingData } from '../../common';
import { defineCallbackTool, type CallbackToolContext } from '../../activities/tools/define-callback-tool';
import type { TestBed, TestBedOptions } from './test-bed';
import { waitForEvent } from './nested-runs';

/** The secret the tests' workers sign callback tokens with and their bridges check them with. */
export const CALLBACK_SECRET = 'test-callback-secret-0123456789';

/** One start of a callback tool, as its code saw it. */
export interface StartedCallback {
  toolCallId: string;
  runId: string;
  args: unknown;
  url: string;
  token: string;
  expiresAt: number;
  idempotencyKey: string;
}

/** Every callback start in this process (in-process workers only), by tool call id (latest last). */
export const startedCallbacks: StartedCallback[] = [];

/** The latest start of `toolCallId`. */
export function startOf(toolCallId: string): StartedCallback {
  const found = startedCallbacks.filter((s) => s.toolCallId === toolCallId).at(-1);
  if (!found) throw new Error(`no callback tool call "${toolCallId}" has started`);
  return found;
}

const note = (args: unknown, ctx: CallbackToolContext): void => {
  startedCallbacks.push({
    toolCallId: ctx.toolCallId,
    runId: ctx.runId,
    args,
    ...ctx.callback,
    idempotencyKey: ctx.idempotencyKey,
  });
};

/** Starts a deploy elsewhere and waits up to 30 s for its result. */
export const deployTool = defineCallbackTool({
  name: 'deploy',
  description: 'Deploys a service; the result comes back when the deploy has finished.',
  parameters: z.object({ service: z.string() }),
  waitTimeoutMs: 30_000,
  async start(args, ctx) {
    note(args, ctx);
  },
});

/** A job whose result must come back within 2.5 s. */
export const quickJobTool = defineCallbackTool({
  name: 'quick_job',
  description: 'Starts a job that must answer within 2.5 seconds.',
  parameters: z.object({ job: z.string() }),
  waitTimeoutMs: 2_500,
  async start(args, ctx) {
    note(args, ctx);
  },
});

/** A callback tool whose start refuses (its outside system said no). */
export const refusedJobTool = defineCallbackTool({
  name: 'refused_job',
  description: 'A job the outside system refuses.',
  parameters: z.object({}),
  waitTimeoutMs: 30_000,
  async start() {
    return { isError: true, content: 'the CI system refused the job: quota exceeded' };
  },
});

/** Test bed options: the callback tools, a bridge and a worker sharing {@link CALLBACK_SECRET}. */
export function callbackBedOptions(bed: () => TestBed, extra: TestBedOptions = {}): TestBedOptions {
  return {
    ...extra,
    tools: [deployTool, quickJobTool, refusedJobTool, ...(extra.tools ?? [])],
    bridge: { callbackSecret: CALLBACK_SECRET },
    workerOptions: { ...extra.workerOptions, callbacks: { secret: CALLBACK_SECRET, baseUrl: () => bed().bridge?.url } },
  };
}

/** Resolves with the TOOL_CALLBACK_WAITING event of `toolCallId` once the root's stream holds it. */
export async function waitForCallback(
  client: Client,
  rootRunId: string,
  toolCallId: string,
): Promise<AgioEvent & { data: ToolCallbackWaitingData }> {
  const event = await waitForEvent(
    client,
    rootRunId,
    (e) => e.type === 'TOOL_CALLBACK_WAITING' && (e.data as { toolCallId?: string }).toolCallId === toolCallId,
  );
  return event as AgioEvent & { data: ToolCallbackWaitingData };
}
