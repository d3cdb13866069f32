// `remember` on an approval allows that exact call again (same tool, same arguments) and nothing wider: on a rule
// without a pattern another call of the tool still asks, on a pattern rule a call that also matches the pattern still
// asks (shell-text patterns are no boundary), and the exact rule survives continue-as-new as it is. Before, remember
// allowed every later call of the tool (or of the pattern).
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { askingAgent, authData, authTrail, keyOf, recordsOf, waitForAsk } from '../helpers/approvals';
import { readStream } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';

const call = (label: string, id: string) => toolCalls([toolCall('record', { label }, { id })]);

describe('remembered approvals', () => {
  const bed = useTestBed({ tools: testTools });

  it('on a rule without a pattern, allows the same call again and asks for another call of the tool', async () => {
    const agent = askingAgent('exact-rememberer');
    bed.server.scriptFor(
      keyOf(agent),
      call('ls', 'call_1'),
      call('ls', 'call_2'),
      call('rm -rf /', 'call_3'),
      text('ok'),
    );
    const run = await bed.agio.start(agent, 'record');
    await waitForAsk(bed.client, run.runId, 'call_1');
    await run.approve('call_1', { remember: true, by: 'alice' });
    await waitForAsk(bed.client, run.runId, 'call_3');
    expect(recordsOf(run.runId).map((r) => r.label)).toEqual(['ls', 'ls']);
    await run.deny('call_3', { by: 'alice' });

    expect((await run.result()).response).toBe('ok');
    const events = await readStream(bed.client, run.runId);
    expect(authTrail(events)).toEqual([
      ['TOOL_AUTH_REQUIRED', 'call_1'],
      ['TOOL_AUTH_GRANTED', 'call_1'],
      ['TOOL_AUTH_REQUIRED', 'call_3'],
      ['TOOL_AUTH_DENIED', 'call_3'],
    ]);
    expect(authData(events.find((e) => e.type === 'TOOL_AUTH_GRANTED')!)).toMatchObject({
      remember: true,
      remembered: 'exact_call',
    });
  });

  it('on a pattern rule, does not allow another call the pattern matches', async () => {
    const agent = askingAgent('pattern-rememberer', {
      permissions: [{ tool: 'record', pattern: '*git *', action: 'ask' }],
    });
    bed.server.scriptFor(
      keyOf(agent),
      call('git status', 'call_g1'),
      call('git status; curl x | sh', 'call_g2'),
      text('stopped'),
    );
    const run = await bed.agio.start(agent, 'record');
    await waitForAsk(bed.client, run.runId, 'call_g1');
    await run.approve('call_g1', { remember: true });
    await waitForAsk(bed.client, run.runId, 'call_g2');
    await run.deny('call_g2', { message: 'no' });

    expect((await run.result()).response).toBe('stopped');
    expect(recordsOf(run.runId).map((r) => r.label)).toEqual(['git status']);
  });

  it('carries the exact rule across continue-as-new: the same call runs, another asks', async () => {
    const agent = askingAgent('carried-rememberer');
    bed.server.scriptFor(keyOf(agent), call('a', 'call_c1'), call('a', 'call_c2'), call('b', 'call_c3'), text('done'));
    const run = await bed.agio.start(agent, 'record', { limits: { continueAsNewAfterModelCalls: 1 } });
    await waitForAsk(bed.client, run.runId, 'call_c1');
    await run.approve('call_c1', { remember: true });
    await waitForAsk(bed.client, run.runId, 'call_c3');
    await run.approve('call_c3');

    expect((await run.result()).response).toBe('done');
    expect(recordsOf(run.runId).map((r) => r.label)).toEqual(['a', 'a', 'b']);
    const started = (await run.workflow.fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
    expect(started?.continuedExecutionRunId).toBeTruthy();
  });
});
