// Retrying a nested run (an agent used as a tool) over HTTP: the child failed at its second model call, its parent went
// on with an unavailable result; the retry is a new root run of the child's agent that continues the child's own
// conversation (its delegation context and tool turn), makes only the failed call, and is linked to the child.
import { asTool, defineAgent } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { sentMessages } from '../helpers/agent-runs';
import { request } from '../helpers/bridge';
import { readStream } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';

const TOKEN = 'nested-retry-token';

describe('retry a nested run over HTTP', () => {
  const helper = defineAgent({ name: 'helper', instructions: 'You are the helper.', tools: ['echo'] });
  const lead = defineAgent({
    name: 'lead',
    instructions: 'You are the lead.',
    tools: [asTool(helper, { description: 'Helps.' })],
  });
  const bed = useTestBed({ tools: testTools, agents: [lead], bridge: { tokens: `${TOKEN}:default` } });
  const call = (method: string, path: string, body?: unknown) =>
    request(`${bed.bridge.url}${path}`, { method, token: TOKEN, ...(body !== undefined ? { body } : {}) });

  it("continues the child's own conversation as a new root linked to it", async () => {
    bed.server.script(toolCalls([toolCall('helper', { task: 'find it' }, { id: 'h1' })]), text('lead gave up'));
    bed.server.scriptFor('You are the helper.', toolCalls([toolCall('echo', { text: 'half way' }, { id: 'e1' })]), {
      error: { status: 400 },
    });
    const started = await call('POST', '/runs', { agent: 'lead', input: 'delegate' });
    const root = started.body.runId as string;
    const events = await readStream(bed.client, root);
    const childId = events.find((e) => e.type === 'RUN_STARTED' && e.runId !== root)?.runId as string;
    expect(events.find((e) => e.type === 'RUN_FAILED' && e.runId === childId)).toBeDefined();
    expect((await call('GET', `/runs/${encodeURIComponent(childId)}`)).body.status).toBe('failed');
    const failedCall = bed.server.requests.length - 2; // the helper's second call; the lead answered after it
    expect(sentMessages(bed.server.requests[failedCall])[0].content).toBe('You are the helper.');

    bed.server.scriptFor('You are the helper.', text('found it'));
    const retried = await call('POST', `/runs/${encodeURIComponent(childId)}/retry`, {});
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ retriedFrom: childId });
    const output = await bed.agio.getHandle(retried.body.runId).result();
    expect(output.response).toBe('found it');
    expect(bed.server.requests).toHaveLength(5);
    expect(sentMessages(bed.server.requests[4])).toEqual(sentMessages(bed.server.requests[failedCall]));
    expect((await call('GET', `/runs/${retried.body.runId}`)).body).toMatchObject({
      status: 'completed',
      retriedFrom: childId,
    });
  });
});
