// A remote A2A agent used as a tool (docs/ARCHITECTURE.md, "A2A"), the remote built with the real @a2a-js/sdk server:
// its answer reaches the model, a worker restart while the remote task runs follows the same task (the message is sent
// once), a remote that asks for input, cannot be reached or may not be reached (a private address) gives the model a
// tool error, and an agents file declares one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineAgent } from '../../common';
import { defineRemoteAgentTool } from '../../activities/a2a/remote-agent-tool';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { agentsWithToolsToServe } from '../../worker/example-agents';
import { RemoteAgent } from '../helpers/a2a-remote';
import { useTestBed, type TestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

let remote: RemoteAgent;
const weather = () =>
  defineRemoteAgentTool({
    name: 'weather',
    description: 'Asks the weather agent.',
    cardUrl: remote.cardUrl,
    allowPrivateAddresses: true,
    timeoutMs: 30_000,
  });
const lazyWeather = { ...defineRemoteAgentTool({ name: 'weather', description: 'x', cardUrl: 'http://127.0.0.1:9/' }) };
const caller = defineAgent({ name: 'caller', instructions: 'You are caller.', tools: ['weather'] });
const strict = defineAgent({ name: 'strict', instructions: 'You are strict.', tools: ['weather_strict'] });

describe('a remote A2A agent as a tool', () => {
  beforeAll(async () => {
    remote = await RemoteAgent.start();
    // The tool reads the card URL when called: the remote's port is known by then.
    Object.assign(lazyWeather, weather());
  });
  afterAll(() => remote?.close());
  const strictWeather = defineRemoteAgentTool({
    name: 'weather_strict',
    description: 'Asks the weather agent, keeping the default address policy.',
    cardUrl: 'http://127.0.0.1:9/.well-known/agent-card.json',
  });
  const bed: TestBed = useTestBed({ tools: [lazyWeather, strictWeather], agents: [caller, strict] });
  const toolStep = async (runId: string) =>
    (await bed.agio.getHandle(runId).result()).steps.find((s) => s.role === 'tool');

  it("gives the model the remote task's answer", async () => {
    remote.mode = 'answer';
    bed.server.scriptFor('You are caller.', toolCalls([toolCall('weather', { message: 'Paris?' })]), text('Sunny.'));
    const run = await bed.agio.start(caller, 'Weather in Paris?');
    expect(await toolStep(run.runId)).toMatchObject({ content: 'Sunny, for: Paris?', isError: false });
    expect(remote.received.at(-1)?.messageId).toMatch(/^agio-[0-9a-f]{32}$/);
  });

  it('follows the same remote task after a worker restart, sending the message once', async () => {
    remote.mode = 'hold';
    const before = remote.received.length;
    bed.server.scriptFor('You are caller.', toolCalls([toolCall('weather', { message: 'Oslo?' })]), text('Snowy.'));
    const run = await bed.agio.start(caller, 'Weather in Oslo?');
    const requestsBefore = remote.rpcRequests;
    await waitFor('the remote got the message', async () => remote.received.length > before || undefined);
    // The message sent and at least one GetTask: the follow is under way on the first worker when it stops.
    await waitFor('the remote task followed', async () => remote.rpcRequests >= requestsBefore + 2 || undefined);
    await bed.restartWorker();
    remote.releaseHeld();
    expect(await toolStep(run.runId)).toMatchObject({ content: 'Sunny, for: Oslo?', isError: false });
    expect(remote.received.length).toBe(before + 1);
    // Sent once, followed twice: the follow that died with the first worker and the one that finished it.
    const history = await bed.client.workflow.getHandle(run.runId).fetchHistory();
    const scheduled = (history.events ?? []).flatMap(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
    );
    expect(scheduled.filter((n) => n === 'sendRemoteMessage')).toHaveLength(1);
    const attempts = (history.events ?? []).flatMap((e) => e.activityTaskStartedEventAttributes?.attempt ?? []);
    expect(Math.max(...attempts)).toBeGreaterThan(1);
  });

  it('gives the model a tool error when the remote asks for input or may not be reached', async () => {
    remote.mode = 'ask';
    bed.server.scriptFor(
      'You are caller.',
      toolCalls([toolCall('weather', { message: 'Weather?' })]),
      text('I need a city.'),
    );
    const asking = await bed.agio.start(caller, 'Weather?');
    const asked = await toolStep(asking.runId);
    expect(asked).toMatchObject({ isError: true });
    expect(asked?.content).toMatch(/stopped to ask for more input.*Which city\?/s);

    bed.server.scriptFor(
      'You are strict.',
      toolCalls([toolCall('weather_strict', { message: 'Weather?' })]),
      text('Cannot.'),
    );
    const refused = await toolStep((await bed.agio.start(strict, 'Weather?')).runId);
    expect(refused).toMatchObject({ isError: true });
    expect(refused?.content).toMatch(/may not be reached: 127\.0\.0\.1 is a loopback/);
  });

  it('is declared in an agents file under remoteAgents', async () => {
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'agio-a2a-'));
    const file = path.join(dir, 'agents.yaml');
    await fs.promises.writeFile(
      file,
      [
        'agents:',
        '  - name: planner',
        '    instructions: You plan.',
        '    tools: [forecast]',
        'remoteAgents:',
        '  - name: forecast',
        '    description: Asks the forecast agent.',
        `    cardUrl: ${remote.cardUrl}`,
        '    tokenEnv: FORECAST_TOKEN',
        '    timeoutMs: 60000',
      ].join('\n'),
    );
    const loaded = await agentsWithToolsToServe(file);
    expect(loaded.remoteAgents).toEqual([expect.objectContaining({ name: 'forecast', tokenEnv: 'FORECAST_TOKEN' })]);
    expect(loaded.tools.find((t) => t.name === 'forecast')?.remoteAgent).toMatchObject({ cardUrl: remote.cardUrl });
  });
});
