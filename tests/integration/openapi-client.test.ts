// The README's curl session, run by a client generated from the OpenAPI document (openapi-typescript types in
// tests/generated/agio-api.ts, openapi-fetch) against a real bridge and worker: start runs (with limits, settings and
// an Idempotency-Key), stream and resume their events, read status and state, pause, resume, approve, deny, cancel,
// list.
import createClient from 'openapi-fetch';
import { defineAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import type { paths } from '../generated/agio-api';
import { askingAgent, keyOf, waitForAsk } from '../helpers/approvals';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

const lead = askingAgent('lead');
const coder = askingAgent('coder', { maxSteps: 80 });
const assistant = askingAgent('assistant');
const fixer = defineAgent({ name: 'fixer', instructions: 'You are fixer.', maxSteps: 80 });

/** The frames of an SSE body until `until` holds for one (or the stream ends). */
async function sseFrames(body: ReadableStream<Uint8Array>, until: (f: { id: string; event: string }) => boolean) {
  const frames: { id: string; event: string; data: unknown }[] = [];
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return frames;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const lines = buffer.slice(0, end).split('\n');
      buffer = buffer.slice(end + 2);
      const field = (name: string) => lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
      const data = field('data');
      if (data === undefined) continue; // a comment
      frames.push({ id: field('id') ?? '', event: field('event') ?? '', data: JSON.parse(data) });
      if (until(frames[frames.length - 1])) {
        await reader.cancel();
        return frames;
      }
    }
  }
}

describe("the README's curl session through a generated client", () => {
  const bed = useTestBed({
    tools: testTools,
    agents: [lead, coder, assistant, fixer],
    bridge: { tokens: 'readme-token:acme' },
  });
  const client = () =>
    createClient<paths>({ baseUrl: bed.bridge.url, headers: { authorization: 'Bearer readme-token' } });

  it('starts, streams, resumes, reads, pauses, resumes, approves, denies, cancels and lists', async () => {
    const api = client();
    bed.server.scriptFor(
      keyOf(lead),
      toolCalls([toolCall('record', { label: 'ws' }, { id: 'call_lead' })]),
      text('a workspace'),
    );
    bed.server.scriptFor(
      keyOf(coder),
      toolCalls([toolCall('record', { label: 'p' }, { id: 'call_coder' })]),
      text('held back'),
    );
    bed.server.scriptFor(keyOf(assistant), toolCalls([toolCall('record', { label: 'h' }, { id: 'call_hi' })]));
    bed.server.scriptFor('You are fixer.', text('fixed'));

    // Start a run; another with its own limits.
    const started = await api.POST('/runs', { body: { agent: 'lead', input: 'what is in the workspace?' } });
    expect(started.response.status).toBe(201);
    const id = started.data!.runId;
    expect(started.data!.links.events).toBe(`/runs/${id}/events`);
    const coded = await api.POST('/runs', {
      body: { agent: 'coder', input: 'write the project', limits: { maxSteps: 60 } },
    });
    const coderId = coded.data!.runId;

    // Its events (SSE: id = offset, event = type) up to the approval it asks for; then again after an id.
    const stream = await api.GET('/runs/{id}/events', { params: { path: { id } }, parseAs: 'stream' });
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = await sseFrames(stream.data!, (f) => f.event === 'TOOL_AUTH_REQUIRED');
    expect(frames[0].event).toBe('RUN_STARTED');
    const resumed = await api.GET('/runs/{id}/events', {
      params: { path: { id }, header: { 'last-event-id': frames[0].id } },
      parseAs: 'stream',
    });
    const after = await sseFrames(resumed.data!, (f) => f.event === 'TOOL_AUTH_REQUIRED');
    expect(after.map((f) => f.id)).toEqual(frames.slice(1).map((f) => f.id));

    // Status, live state; pause (a second pause: 409 already_paused), resume.
    expect((await api.GET('/runs/{id}', { params: { path: { id } } })).data).toMatchObject({ status: 'running' });
    const state = await api.GET('/runs/{id}/state', { params: { path: { id } } });
    expect(state.data!.pendingApprovals.map((p) => p.toolCallId)).toEqual(['call_lead']);
    const paused = await api.POST('/runs/{id}/pause', { params: { path: { id } }, body: { reason: 'lunch' } });
    expect(paused.data).toMatchObject({ paused: true, pauseReason: 'lunch' });
    const again = await api.POST('/runs/{id}/pause', { params: { path: { id } }, body: { reason: 'lunch' } });
    expect(again.error).toMatchObject({ error: { code: 'already_paused' } });
    expect((await api.POST('/runs/{id}/resume', { params: { path: { id } } })).data).toMatchObject({ paused: false });

    // Approve one call, deny another; both runs finish.
    const approved = await api.POST('/runs/{id}/tool-calls/{callId}/approve', {
      params: { path: { id, callId: 'call_lead' } },
      body: { remember: true },
    });
    expect(approved.data).toEqual({ toolCallId: 'call_lead', decision: 'approve' });
    await waitForAsk(bed.client, coderId, 'call_coder');
    const denied = await api.POST('/runs/{id}/tool-calls/{callId}/deny', {
      params: { path: { id: coderId, callId: 'call_coder' } },
      body: { message: 'not on prod' },
    });
    expect(denied.data).toEqual({ toolCallId: 'call_coder', decision: 'deny' });
    for (const [run, response] of [
      [id, 'a workspace'],
      [coderId, 'held back'],
    ])
      await waitFor(`${run} completes`, async () => {
        const { data } = await api.GET('/runs/{id}', { params: { path: { id: run } } });
        return data?.status === 'completed' && (data.output as { response?: string }).response === response;
      });

    // An idempotent start: 201, the same request again 200 and the same run, another body 409; then cancel it.
    const keyed = {
      params: { header: { 'idempotency-key': 'order-1234' } },
      body: { agent: 'assistant', input: 'hello' },
    };
    const first = await api.POST('/runs', keyed);
    const repeat = await api.POST('/runs', keyed);
    expect([first.response.status, repeat.response.status, repeat.data!.runId]).toEqual([201, 200, first.data!.runId]);
    const other = await api.POST('/runs', { ...keyed, body: { agent: 'assistant', input: 'bye' } });
    expect(other.error).toMatchObject({ error: { code: 'idempotency_conflict' } });
    await waitForAsk(bed.client, first.data!.runId, 'call_hi');
    const cancelled = await api.POST('/runs/{id}/cancel', { params: { path: { id: first.data!.runId } } });
    expect(cancelled.data).toEqual({ runId: first.data!.runId, cancelRequested: true });

    // Run settings: rules, model settings and limits of this run.
    const fix = await api.POST('/runs', {
      body: {
        agent: 'fixer',
        input: 'fix the tests',
        permissions: [{ tool: 'bash', action: 'ask' }],
        modelSettings: { temperature: 0.1 },
        limits: { maxSteps: 40 },
      },
    });
    expect(fix.response.status).toBe(201);
    await waitFor('the fix completes', async () => {
      const { data } = await api.GET('/runs/{id}', { params: { path: { id: fix.data!.runId } } });
      return data?.status === 'completed';
    });

    // The agents, the tenant's runs filtered, and the next page.
    const agents = await api.GET('/agents');
    expect(agents.data!.agents.map((a) => a.name).sort()).toEqual(['assistant', 'coder', 'fixer', 'lead']);
    const leads = await waitFor('the listing has the lead run', async () => {
      const { data } = await api.GET('/runs', { params: { query: { status: 'completed', agent: 'lead', limit: 20 } } });
      return data?.runs.some((r) => r.runId === id) && data;
    });
    expect(leads.runs.every((r) => r.agent === 'lead')).toBe(true);
    const page = await waitFor('a first page of one', async () => {
      const { data } = await api.GET('/runs', { params: { query: { limit: 1 } } });
      return data?.nextPageToken && data;
    });
    const next = await api.GET('/runs', { params: { query: { limit: 1, pageToken: page.nextPageToken } } });
    expect(next.data!.runs).toHaveLength(1);
    expect(next.data!.runs[0].runId).not.toBe(page.runs[0].runId);
  });
});
