// The production shape for a test file (tests/production): one stack (devkit/production-stack.ts) started in
// beforeAll and stopped in afterAll, with a scripted model and the agents the tests use; plus the HTTP calls a client
// of the bridges makes and the Temporal client a test uses to look at what happened.
import { Client, Connection } from '@temporalio/client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { endsStream, type AgioEvent } from '../../common';
import { startProductionStack, type ProductionStack } from '../../devkit/production-stack';
import { ScriptedModelServer } from '../../devkit/scripted-model-server';
import type { AgioProcess } from '../../devkit/agio-process';
import { request } from './bridge';
import { readSse, type SseEvent } from './sse-client';

/** The bridges' token (tenant `default`). */
export const TOKEN = 'dev-token';

/** The agents every production test can run; each one's instructions start with its routing key `You are <name>.` */
const AGENTS = `agents:
  - name: lead
    description: Delegates to helper.
    instructions: You are lead. Delegate the work to the helper agent, then report.
    tools:
      - agent: helper
        description: A helper agent; give it a complete task.
  - name: helper
    description: Does what it is asked.
    instructions: You are helper.
  - name: solo
    description: Answers directly.
    instructions: You are solo.
  - name: lister
    description: Lists its workspace.
    instructions: You are lister.
    tools: [ls]
  - name: writer
    description: Writes a file, then reads it back.
    instructions: You are writer.
    tools: [file_write, file_read]
  - name: fanout
    description: Five readers side by side.
    kind: parallel
    subAgents:
${[1, 2, 3, 4, 5].map((i) => `      - { name: reader${i}, instructions: "You are reader${i}.", tools: [file_write, file_read], maxSteps: 5000 }`).join('\n')}
  - name: careful
    description: Lists its workspace once a person approves.
    instructions: You are careful.
    tools: [ls]
    permissions:
      - { tool: ls, action: ask }
`;

/** The stack, the model and a Temporal client, filled in by beforeAll. */
export interface ProductionBed {
  stack: ProductionStack;
  model: ScriptedModelServer;
  client: Client;
}

/** Starts the stack once for the file (beforeAll) and stops it (afterAll); `timeoutMs` covers a first build. */
export function useProductionStack(timeoutMs = 20 * 60_000): ProductionBed {
  const bed = {} as ProductionBed;
  let connection: Connection | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'agio-production-test-'));
    await fs.promises.writeFile(path.join(dir, 'agents.yaml'), AGENTS);
    bed.model = await ScriptedModelServer.start();
    const t0 = Date.now();
    bed.stack = await startProductionStack({
      model: { baseURL: bed.model.baseURL },
      agentsFile: path.join(dir, 'agents.yaml'),
      tokens: `${TOKEN}:default`,
      log: () => undefined,
    });
    console.log(`production stack ready in ${Date.now() - t0} ms: ${JSON.stringify(bed.stack.timings)}`);
    connection = await Connection.connect({ address: bed.stack.temporal.address });
    bed.client = new Client({ connection, namespace: bed.stack.temporal.namespace });
  }, timeoutMs);
  afterAll(async () => {
    await connection?.close();
    await bed.stack?.stop();
    await bed.model?.close();
    if (dir) await fs.promises.rm(dir, { recursive: true, force: true });
  }, 120_000);
  return bed;
}

/** POST /runs on a bridge; returns the new run's id. */
export async function startRunOn(bridge: AgioProcess, agent: string, input: string): Promise<string> {
  const { status, body } = await request(`${bridge.url}/runs`, { token: TOKEN, body: { agent, input } });
  if (status !== 201) throw new Error(`POST /runs answered ${status}: ${JSON.stringify(body)}`);
  return body.runId as string;
}

/** Whether the frames hold the root run's terminal event. */
export function rootEnded(frames: SseEvent[]): boolean {
  return frames.some((f) => {
    const event = JSON.parse(f.data) as AgioEvent;
    return event.depth === 0 && endsStream(event);
  });
}

/**
 * Follows a run's stream on the given bridges in turn, resuming with the last id it had whenever a connection ends
 * before the root's terminal event; `onEvent` sees every frame as it arrives. Returns the frames and the reconnects.
 */
export async function followRun(
  runId: string,
  bridges: () => AgioProcess[],
  onEvent: (frame: SseEvent) => void = () => undefined,
  timeoutMs = 180_000,
): Promise<{ frames: SseEvent[]; connections: number }> {
  const frames: SseEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  let connections = 0;
  while (!rootEnded(frames) && Date.now() < deadline) {
    const live = bridges().filter((b) => b.url);
    const bridge = live[connections++ % live.length];
    await readSse(`${bridge.url}/runs/${runId}/events`, {
      token: TOKEN,
      timeoutMs: Math.max(1000, deadline - Date.now()),
      ...(frames.length ? { lastEventId: frames.at(-1)!.id } : {}),
      onEvent: (frame) => {
        frames.push(frame);
        onEvent(frame);
      },
    }).catch(() => undefined);
  }
  return { frames, connections };
}

/** The pid of the worker process a run's pending activity of `type` last started on (its identity is `pid@host`). */
export async function workerOfPendingActivity(
  client: Client,
  runId: string,
  type: string,
): Promise<number | undefined> {
  const description = await client.workflow.getHandle(runId).describe();
  const pending = description.raw.pendingActivities?.find((a) => a.activityType?.name === type);
  const pid = Number(pending?.lastWorkerIdentity?.split('@')[0]);
  return pid > 0 ? pid : undefined;
}

/** The pids of the workers that ran a run's workflow tasks, in order (identities are `pid@host`). */
export async function workflowTaskWorkers(client: Client, runId: string): Promise<number[]> {
  const history = await client.workflow.getHandle(runId).fetchHistory();
  return (history.events ?? [])
    .map((e) => e.workflowTaskStartedEventAttributes?.identity)
    .filter((identity): identity is string => !!identity)
    .map((identity) => Number(identity.split('@')[0]));
}

/** The build id a worker process polls as (from its start line `... as version <deployment>.<buildId>`). */
export function buildIdOf(worker: AgioProcess): string {
  const match = / as version [^.\s]+\.(\S+)/.exec(worker.output());
  if (!match) throw new Error(`${worker.name} printed no version:\n${worker.output()}`);
  return match[1];
}

/** The pids of the workers that started a run's activities of `type` (e.g. runTool), in history order. */
export async function activityWorkers(client: Client, runId: string, type: string): Promise<number[]> {
  const events = (await client.workflow.getHandle(runId).fetchHistory()).events ?? [];
  const scheduled = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type)
      .map((e) => Number(e.eventId)),
  );
  return events
    .filter((e) => scheduled.has(Number(e.activityTaskStartedEventAttributes?.scheduledEventId)))
    .map((e) => Number(e.activityTaskStartedEventAttributes?.identity?.split('@')[0]));
}
