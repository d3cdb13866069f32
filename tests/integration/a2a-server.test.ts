// A2A v1.0 on the bridge (docs/ARCHITECTURE.md, "A2A"), with the real @a2a-js/sdk client: each agent's card, a task
// sent and streamed, read back, cancelled and followed again, a run waiting for an approval seen as input-required and
// continued with the decision, a push notification delivered as a signed webhook, and the refusals (tokens, tenants,
// scopes, bad input).
import { TaskState } from '@a2a-js/sdk';
import { pushSecretOf } from '../../protocols/a2a/push-configs';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { a2aClient, agentUrl, collect, sendRequest, shapeOf, userMessage } from '../helpers/a2a';
import { askingAgent, keyOf } from '../helpers/approvals';
import { request, startBridge } from '../helpers/bridge';
import { useTestBed } from '../helpers/test-bed';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { waitFor } from '../helpers/workflow-agents';
import { asTool, defineAgent } from '../../common';

const helper = defineAgent({ name: 'helper', description: 'Answers questions.', instructions: 'You are helper.' });
const careful = askingAgent('careful');
const deep = askingAgent('deep');
const lead = defineAgent({
  name: 'lead',
  instructions: 'You are lead.',
  tools: [asTool(deep, { description: 'Delegates.' })],
});
const ACME = 'acme-all';
const TOKENS = `${ACME}:acme:ops:start+read+decide+control,acme-reader:acme:dash:read,beta-all:beta`;
const {
  TASK_STATE_COMPLETED: COMPLETED,
  TASK_STATE_INPUT_REQUIRED: INPUT_REQUIRED,
  TASK_STATE_CANCELED: CANCELED,
  TASK_STATE_WORKING: WORKING,
} = TaskState;

describe('A2A server', () => {
  const bed = useTestBed({
    tools: testTools,
    agents: [helper, careful, lead],
    bridge: {
      tokens: TOKENS,
      webhookAllowPrivate: true,
    },
    workerOptions: { webhooks: { allowPrivate: true, initialIntervalMs: 200, attemptTimeoutMs: 1500 } },
  });
  const client = (agent: string, token: string | undefined = ACME) => a2aClient(agentUrl(bed.bridge.url, agent), token);
  const answerText = (parts: { content?: { $case: string; value?: unknown } }[] | undefined) =>
    parts?.find((p) => p.content?.$case === 'text')?.content?.value;

  it('serves a card per agent, generated from its spec, to a token holder only', async () => {
    const card = await (await client('helper')).getAgentCard();
    expect(card).toMatchObject({
      name: 'helper',
      description: 'Answers questions.',
      capabilities: { streaming: true, pushNotifications: true },
      skills: [{ id: 'helper', tags: ['llm'] }],
      securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    });
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${bed.bridge.url}/a2a/agents/helper`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
    expect(card.securitySchemes.bearer.scheme).toMatchObject({ value: { scheme: 'Bearer' } });
    await expect(a2aClient(agentUrl(bed.bridge.url, 'helper'))).rejects.toThrow(/401/);
    expect(
      (await request(`${agentUrl(bed.bridge.url, 'nobody')}.well-known/agent-card.json`, { token: ACME })).status,
    ).toBe(404);
  });

  it('runs a task to its end: sent, read back, and continued in its context (the session)', async () => {
    bed.server.scriptFor('You are helper.', text('Paris.'), text('About 2.1 million.'));
    const a2a = await client('helper');
    const task = await a2a.sendMessage(sendRequest(userMessage('Capital of France?')));
    if (!('id' in task)) throw new Error('expected a task');
    expect(task.status?.state).toBe(COMPLETED);
    expect(answerText(task.artifacts[0]?.parts)).toBe('Paris.');
    expect(await bed.agio.getHandle(task.id).result()).toMatchObject({ response: 'Paris.', sessionId: task.contextId });
    const read = await a2a.getTask({ tenant: '', id: task.id });
    expect(read).toMatchObject({ id: task.id, contextId: task.contextId, status: { state: COMPLETED } });
    expect(answerText(read.artifacts[0].parts)).toBe('Paris.');
    const next = await a2a.sendMessage(sendRequest(userMessage('Its population?', { contextId: task.contextId })));
    if (!('id' in next)) throw new Error('expected a task');
    expect([next.id === task.id, next.contextId, next.status?.state]).toEqual([false, task.contextId, COMPLETED]);
    const seen = bed.server.requests.at(-1)?.body.messages.map((m: { content: unknown }) => m.content);
    expect(seen).toEqual(expect.arrayContaining(['Capital of France?', 'Paris.', 'Its population?']));
  });

  it('streams a task: the task, working, the output artifact, completed', async () => {
    bed.server.scriptFor('You are helper.', text('Streamed.'));
    const a2a = await client('helper');
    const events = await collect(a2a.sendMessageStream(sendRequest(userMessage('Stream it'))));
    expect(shapeOf(events)).toEqual([
      `task:${TaskState.TASK_STATE_SUBMITTED}`,
      `statusUpdate:${WORKING}`,
      'artifactUpdate',
      `statusUpdate:${COMPLETED}`,
    ]);
  });

  it('waits for an approval as input-required, and goes on with the decision sent to the task', async () => {
    bed.server.scriptFor(
      keyOf(careful),
      toolCalls([toolCall('record', { label: 'a' }, { id: 'call-a' })]),
      text('Recorded.'),
    );
    const a2a = await client('careful');
    const waiting = await a2a.sendMessage(sendRequest(userMessage('Record a')));
    if (!('id' in waiting)) throw new Error('expected a task');
    expect(waiting.status?.state).toBe(INPUT_REQUIRED);
    const asked = waiting.status?.message?.parts.find((p) => p.content?.$case === 'data')?.content?.value;
    expect(asked).toMatchObject({ pendingApprovals: [{ toolCallId: 'call-a', tool: 'record', args: { label: 'a' } }] });
    expect((await a2a.getTask({ tenant: '', id: waiting.id })).status?.state).toBe(INPUT_REQUIRED);
    await expect(
      a2a.sendMessage(sendRequest(userMessage('maybe later', { taskId: waiting.id, contextId: waiting.contextId }))),
    ).rejects.toThrow(/send "approve" or "deny"/);
    // Continued through another bridge (as after a restart): the task lives in the run, not in a bridge.
    const other = await startBridge({
      client: bed.client,
      taskQueue: bed.worker.taskQueue,
      agents: [helper, careful],
      tokens: TOKENS,
    });
    try {
      const elsewhere = await a2aClient(agentUrl(other.url, 'careful'), ACME);
      const done = await elsewhere.sendMessage(
        sendRequest(userMessage('approve', { taskId: waiting.id, contextId: waiting.contextId })),
      );
      expect(done).toMatchObject({ id: waiting.id, status: { state: COMPLETED } });
    } finally {
      await other.close();
    }
    const granted = (await bed.agio.getHandle(waiting.id).result()).steps.find((s) => s.role === 'tool');
    expect(granted?.content).toBe('recorded a');
  });

  it('streams until a nested run waits for an approval, and takes the decision as a data part', async () => {
    bed.server.scriptFor('You are lead.', toolCalls([toolCall('deep', { task: 'record x' })]), text('Lead done.'));
    bed.server.scriptFor(keyOf(deep), toolCalls([toolCall('record', { label: 'x' }, { id: 'call-x' })]), text('Deep.'));
    const a2a = await client('lead');
    const events = await collect(a2a.sendMessageStream(sendRequest(userMessage('Go deep'))));
    expect(shapeOf(events).at(-1)).toBe(`statusUpdate:${INPUT_REQUIRED}`);
    const first = events[0].payload?.$case === 'task' ? events[0].payload.value : undefined;
    const decision = userMessage(
      { decision: 'approve', toolCallId: 'call-x' },
      { taskId: first!.id, contextId: first!.contextId },
    );
    const rest = await collect(a2a.sendMessageStream(sendRequest(decision)));
    expect(shapeOf(rest).slice(-2)).toEqual(['artifactUpdate', `statusUpdate:${COMPLETED}`]);
    expect((await bed.agio.getHandle(first!.id).result()).response).toBe('Lead done.');
  });

  it('cancels a task, and follows a working one again with SubscribeToTask', async () => {
    bed.server.scriptFor('You are helper.', text('Slow answer.', { firstChunkDelayMs: 1500 }));
    const a2a = await client('helper');
    const started = await a2a.sendMessage(sendRequest(userMessage('Take your time'), { returnImmediately: true }));
    if (!('id' in started)) throw new Error('expected a task');
    const followed = await collect(a2a.resubscribeTask({ tenant: '', id: started.id }));
    expect(shapeOf(followed)).toEqual([`task:${WORKING}`, 'artifactUpdate', `statusUpdate:${COMPLETED}`]);
    await expect(a2a.resubscribeTask({ tenant: '', id: started.id }).next()).rejects.toThrow(/has ended/);
    bed.server.scriptFor(keyOf(careful), toolCalls([toolCall('record', { label: 'b' }, { id: 'call-b' })]));
    const waiting = await (await client('careful')).sendMessage(sendRequest(userMessage('Record b')));
    if (!('id' in waiting)) throw new Error('expected a task');
    const cancelled = await (await client('careful')).cancelTask({ tenant: '', id: waiting.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(CANCELED);
    await expect(bed.agio.getHandle(waiting.id).result()).rejects.toThrow();
  });

  it('delivers push notifications as webhooks signed with the config token', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const token = 'push-token-0123456789abcdef';
      receiver.verifyWith('/a2a', pushSecretOf(token));
      bed.server.scriptFor('You are helper.', text('Pushed.'));
      const a2a = await client('helper');
      const task = await a2a.sendMessage(
        sendRequest(userMessage('Push it'), { push: { url: receiver.url('/a2a'), token } }),
      );
      if (!('id' in task)) throw new Error('expected a task');
      const [hook] = await waitFor('the push arrived', async () =>
        receiver.at('/a2a').length ? receiver.at('/a2a') : undefined,
      );
      expect(hook).toMatchObject({
        verified: true,
        body: { type: 'run.completed', data: { runId: task.id, response: 'Pushed.' } },
      });
      const configs = await a2a.listTaskPushNotificationConfig({
        tenant: '',
        taskId: task.id,
        pageSize: 10,
        pageToken: '',
      });
      expect(configs.configs).toEqual([
        expect.objectContaining({ id: 'default', url: receiver.url('/a2a'), token: '' }),
      ]);
      await expect(
        a2a.sendMessage(sendRequest(userMessage('x'), { push: { url: receiver.url('/a2a'), token: 'short' } })),
      ).rejects.toThrow(/token: 24-256/);
    } finally {
      await receiver.close();
    }
  });

  it("refuses other tenants' tasks, missing scopes and bad input", async () => {
    bed.server.scriptFor('You are helper.', text('Mine.'));
    const task = await (await client('helper')).sendMessage(sendRequest(userMessage('Mine?')));
    if (!('id' in task)) throw new Error('expected a task');
    const beta = await client('helper', 'beta-all');
    await expect(beta.getTask({ tenant: '', id: task.id })).rejects.toThrow(/not found/i);
    await expect(beta.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toThrow(/not found/i);
    const rpc = (token: string, body: unknown) =>
      request(`${bed.bridge.url}/a2a/agents/helper`, { token, body, headers: { 'a2a-version': '1.0' } });
    const send = {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
    };
    expect((await rpc('acme-reader', send)).body).toMatchObject({ error: { code: 'forbidden', scope: 'start' } });
    expect((await request(`${bed.bridge.url}/a2a/agents/helper`, { body: send })).status).toBe(401);
    expect((await rpc(ACME, { jsonrpc: '1.0', method: 'GetTask' })).status).toBe(400);
    const file = {
      ...send,
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ url: 'file:///etc/passwd' }] } },
    };
    expect((await rpc(ACME, file)).body.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/only text and data/),
    });
    const badContext = { ...send, params: { message: { ...send.params.message, contextId: '../../x' } } };
    expect((await rpc(ACME, badContext)).body.error.message).toMatch(/contextId/);
    const noVersion = await request(`${bed.bridge.url}/a2a/agents/helper`, { token: ACME, body: send });
    expect(noVersion.body.error).toBeDefined();
  });
});
