// A run's own settings over HTTP on a real worker: per-run permission rules (an `ask` makes a call wait for approval;
// an `allow` is refused unless the bridge allows overrides), model settings that reach every model request of the
// run (an LLM agent's, each LLM sub-agent's of a workflow agent), user and state, and a 400 naming the field for
// anything unbounded or unknown.
import { parseTokens } from '../../bridge/auth';
import { createBridge } from '../../bridge/server';
import { AgioClient } from '../../client/agio-client';
import { defineAgent, sequentialAgent, type AgentRunInput, type AnyAgentSpec } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { activities, startInput } from '../helpers/agent-runs';
import { authTrail, recordsOf, waitForAsk } from '../helpers/approvals';
import { request } from '../helpers/bridge';
import { readStream, requestsOf } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';
import { agentKey, requestsOfAgent, subAgent, systemPrompt } from '../helpers/workflow-agents';

const TOKEN = 'settings-token';

describe('per-run settings over HTTP', () => {
  const agents: AnyAgentSpec[] = [
    defineAgent({ name: 'recorder', instructions: 'You are the recorder.', tools: ['record'] }),
    defineAgent({
      name: 'guarded',
      instructions: 'You are the guarded one.',
      tools: ['record'],
      permissions: [{ tool: 'record', action: 'ask' }],
    }),
    defineAgent({
      name: 'writer',
      instructions: 'You are the writer. Topic: {topic}.',
      modelSettings: { temperature: 1, topP: 0.5 },
    }),
    sequentialAgent({
      name: 'pipeline',
      subAgents: [subAgent('first', { modelSettings: { topP: 0.9 } }), subAgent('second')],
    }),
  ];
  const bridges: { strict?: ReturnType<typeof createBridge>; open?: ReturnType<typeof createBridge> } = {};
  const urls = { strict: '', open: '' };
  // Declared before the test bed's own afterAll, so the bridges close while the bed is still up.
  afterAll(async () => {
    await bridges.strict?.close();
    await bridges.open?.close();
  });
  const bed = useTestBed({ tools: testTools });
  beforeAll(async () => {
    const agio = new AgioClient(bed.client, { taskQueue: bed.worker.taskQueue, agents });
    for (const kind of ['strict', 'open'] as const) {
      const app = (bridges[kind] = createBridge({
        agio,
        tokens: parseTokens(`${TOKEN}:default`),
        stores: bed.worker.stores,
        allowPermissionOverrides: kind === 'open',
      }));
      urls[kind] = await app.listen({ host: '127.0.0.1', port: 0 });
    }
  });

  const post = (body: object, bridge: 'strict' | 'open' = 'strict') =>
    request(`${urls[bridge]}/runs`, { token: TOKEN, body });
  const handle = (runId: string) => bed.client.workflow.getHandle(runId);

  it('makes a tool call wait for approval under an `ask` rule posted with the run, and runs it once approved', async () => {
    bed.server.scriptFor(
      'You are the recorder.',
      toolCalls([toolCall('record', { label: 'asked first' }, { id: 'call_rec' })]),
      text('recorded after asking'),
    );

    const started = await post({
      agent: 'recorder',
      input: 'record it',
      permissions: [{ tool: 'record', action: 'ask' }],
    });
    const runId: string = started.body.runId;
    await waitForAsk(bed.client, runId, 'call_rec');
    expect(recordsOf(runId)).toEqual([]);
    const approved = await request(`${urls.strict}/runs/${runId}/tool-calls/call_rec/approve`, {
      token: TOKEN,
      body: {},
    });

    expect(started.status).toBe(201);
    expect(approved).toEqual({ status: 200, body: { toolCallId: 'call_rec', decision: 'approve' } });
    expect((await handle(runId).result()).response).toBe('recorded after asking');
    expect(recordsOf(runId).map((r) => r.label)).toEqual(['asked first']);
    expect(authTrail(await readStream(bed.client, runId))).toEqual([
      ['TOOL_AUTH_REQUIRED', 'call_rec'],
      ['TOOL_AUTH_GRANTED', 'call_rec'],
    ]);
  });

  it('never runs a tool a `deny` rule posted with the run forbids', async () => {
    bed.server.scriptFor(
      'You are the recorder.',
      toolCalls([toolCall('record', { label: 'forbidden' }, { id: 'call_no' })]),
      text('could not record'),
    );

    const { body } = await post({
      agent: 'recorder',
      input: 'record it',
      permissions: [{ tool: 'record', action: 'deny' }],
    });

    expect((await handle(body.runId).result()).response).toBe('could not record');
    expect(recordsOf(body.runId)).toEqual([]);
    expect(activities(await handle(body.runId).fetchHistory(), 'runTool')).toEqual([]);
  });

  it("refuses an `allow` rule with 400 by default, and with allowPermissionOverrides lets it skip the agent's own `ask`", async () => {
    const allow = { agent: 'guarded', input: 'record it', permissions: [{ tool: 'record', action: 'allow' }] };
    const refused = await post(allow);
    expect(refused).toEqual({
      status: 400,
      body: {
        error: {
          code: 'permission_override_refused',
          message: expect.stringContaining('allowPermissionOverrides: true'),
        },
      },
    });
    expect(bed.server.requests).toHaveLength(0);

    bed.server.scriptFor(
      'You are the guarded one.',
      toolCalls([toolCall('record', { label: 'allowed' }, { id: 'call_ok' })]),
      text('recorded without asking'),
    );
    const accepted = await post(allow, 'open');
    expect(accepted.status).toBe(201);
    expect((await handle(accepted.body.runId).result()).response).toBe('recorded without asking');
    expect(recordsOf(accepted.body.runId).map((r) => r.label)).toEqual(['allowed']);
    expect(authTrail(await readStream(bed.client, accepted.body.runId))).toEqual([]);
  });

  it("sends the run's model settings over the agent's with its model calls, records them in its spec, and fills user and state", async () => {
    bed.server.scriptFor('You are the writer.', text('written'));

    const { status, body } = await post({
      agent: 'writer',
      input: 'write',
      modelSettings: { temperature: 0.2, maxTokens: 50 },
      userId: 'user-7',
      state: { topic: 'tides' },
    });
    await handle(body.runId).result();

    expect(status).toBe(201);
    const [sent] = requestsOf(bed.server, 'You are the writer.');
    expect(sent.body).toMatchObject({ temperature: 0.2, top_p: 0.5, max_tokens: 50 });
    expect(systemPrompt(sent)).toBe('You are the writer. Topic: tides.');
    const recorded = startInput<AgentRunInput>(await handle(body.runId).fetchHistory());
    expect(recorded.agent.modelSettings).toEqual({ temperature: 0.2, topP: 0.5, maxTokens: 50 });
    expect(recorded.context).toMatchObject({ userId: 'user-7' });
  });

  it('merges model settings over every LLM sub-agent of a workflow agent', async () => {
    bed.server.scriptFor(agentKey('first'), text('one'));
    bed.server.scriptFor(agentKey('second'), text('two'));

    const { body } = await post({ agent: 'pipeline', input: 'go', modelSettings: { temperature: 0.3 } });
    await handle(body.runId).result();

    expect(requestsOfAgent(bed.server, 'first')[0].body).toMatchObject({ temperature: 0.3, top_p: 0.9 });
    expect(requestsOfAgent(bed.server, 'second')[0].body).toMatchObject({ temperature: 0.3 });
  });

  it('answers 400 naming the field for out-of-bound limits and maxTokens, bad rules and unknown fields, and starts nothing', async () => {
    const cases: [object, RegExp][] = [
      [{ limits: { maxSteps: 1e9 } }, /limits\.maxSteps/],
      [{ limits: { maxTotalTokens: 1e12 } }, /limits\.maxTotalTokens/],
      [{ modelSettings: { maxTokens: 1e9 } }, /modelSettings\.maxTokens/],
      [{ modelSettings: { temperature: 3 } }, /modelSettings\.temperature/],
      [{ modelSettings: { seed: 1 } }, /modelSettings.*seed/],
      [{ permissions: Array.from({ length: 51 }, () => ({ tool: 'record', action: 'deny' })) }, /permissions/],
      [{ permissions: [{ tool: 'record', action: 'deny', note: 'x' }] }, /permissions\.0.*note/],
      [{ colour: 'red' }, /colour/],
    ];
    for (const [extra, field] of cases) {
      const res = await post({ agent: 'recorder', input: 'never', ...extra });
      expect([extra, res.status, res.body.error?.code]).toEqual([extra, 400, 'invalid_request']);
      expect([extra, res.body.error.message]).toEqual([extra, expect.stringMatching(field)]);
    }
    expect(bed.server.requests).toHaveLength(0);
  });
});
