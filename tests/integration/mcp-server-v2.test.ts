// The bridge's /mcp driven by the MCP SDK v2 client (@modelcontextprotocol/client 2.x, negotiating from the 2026-07-28
// era down to the server's 2025-11-25) with @modelcontextprotocol/ext-tasks, in a process of its own: the tools and a
// plain call, a task followed to its result through an approval, and a task cancelled (so is its run).
import { RunCancelledError } from '../../client/errors';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { askingAgent, keyOf, waitForAsk } from '../helpers/approvals';
import { runV2Client } from '../helpers/mcp-clients';
import { useTestBed } from '../helpers/test-bed';

const asker = askingAgent('v2-asker');

describe('MCP server (SDK v2 client with ext-tasks)', () => {
  const bed = useTestBed({ tools: testTools, agents: [asker], bridge: true });
  const v2 = (scenario: string, input: string) =>
    runV2Client(bed.bridge.url, bed.bridge.token, scenario, asker.name, input);

  it('lists the agents and answers a plain call after falling back to the 2025-11-25 handshake', async () => {
    bed.server.scriptFor(keyOf(asker), text('plain answer'));
    const run = v2('plain', 'hello');
    expect(await run.step('connected')).toEqual({ step: 'connected', era: 'legacy' });
    const { tools } = await run.step('tools');
    expect(tools).toEqual([expect.objectContaining({ name: 'v2-asker', execution: { taskSupport: 'optional' } })]);
    const { result } = await run.step('result');
    expect(result.content).toEqual([{ type: 'text', text: 'plain answer' }]);
    expect((await run.exited).code).toBe(0);
  });

  it('follows a task (task id = run id) through an approval to its result', async () => {
    bed.server.scriptFor(
      keyOf(asker),
      toolCalls([toolCall('record', { label: 'v2' }, { id: 'call_v2' })]),
      text('recorded for v2'),
    );
    const run = v2('follow', 'record it');
    const { kind, taskId } = await run.step('execution');
    expect(kind).toBe('task');
    await waitForAsk(bed.client, taskId, 'call_v2');
    await bed.bridge.agio.getHandle(taskId).approve('call_v2');
    const { outcome } = await run.step('outcome');
    expect(outcome).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'recorded for v2' }] },
    });
    expect((await run.exited).code).toBe(0);
  });

  it('cancels the run when the client cancels its task', async () => {
    bed.server.scriptFor(keyOf(asker), toolCalls([toolCall('record', { label: 'no' }, { id: 'call_v2_cancel' })]));
    const run = v2('cancel', 'record it');
    const { taskId } = await run.step('execution');
    expect((await run.step('outcome')).outcome).toMatchObject({ status: 'cancelled' });
    await expect(bed.bridge.agio.getHandle(taskId).result()).rejects.toBeInstanceOf(RunCancelledError);
    expect((await run.exited).code).toBe(0);
  });
});
