// Continue-as-new carries what an operator decided: a call approved with `remember` before the run continued as new
// is not asked about again after it. Before, remembered rules lived only in the workflow's memory and were lost.
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { askingAgent, authTrail, keyOf, recordsOf, waitForAsk } from '../helpers/approvals';
import { expectWholeStream, readStream } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';

describe('continue-as-new', () => {
  const bed = useTestBed({ tools: testTools });

  it('carries rules remembered from an approval: the same call is not asked about again', async () => {
    const agent = askingAgent('carrying-asker');
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: 'before' }, { id: 'call_1' })]),
      toolCalls([toolCall('record', { label: 'before' }, { id: 'call_2' })]),
      text('carried'),
    );
    const run = await bed.agio.start(agent, 'record twice', { limits: { continueAsNewAfterModelCalls: 1 } });
    await waitForAsk(bed.client, run.runId, 'call_1');
    await run.approve('call_1', { remember: true, by: 'alice' });

    expect((await run.result()).response).toBe('carried');
    expect(recordsOf(run.runId).map((r) => r.label)).toEqual(['before', 'before']);
    const events = await readStream(bed.client, run.runId);
    expectWholeStream(events, run.runId);
    expect(authTrail(events)).toEqual([
      ['TOOL_AUTH_REQUIRED', 'call_1'],
      ['TOOL_AUTH_GRANTED', 'call_1'],
    ]);
    // The run that made call_2 is a continued one.
    const started = (await bed.client.workflow.getHandle(run.runId).fetchHistory()).events?.[0]
      ?.workflowExecutionStartedEventAttributes;
    expect(started?.continuedExecutionRunId).toBeTruthy();
  });
});
