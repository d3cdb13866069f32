// The viewer's fold of a callback tool's wait: TOOL_CALLBACK_WAITING marks the call waiting for its outside result,
// with when the wait ends, until the call's tool step arrives with the result.
import type { WireEvent } from '../../common';
import { applyEvent, callOf, emptyTree } from '../../ui/src/run-tree';

const ROOT = 'run-cb';
let offset = -1;
const event = (type: string, extra: Partial<WireEvent>): WireEvent =>
  ({
    runId: ROOT,
    rootRunId: ROOT,
    agent: 'ops',
    depth: 0,
    type,
    timestamp: 1000,
    offset: ++offset,
    ...extra,
  }) as WireEvent;

describe('the viewer and callback tools', () => {
  it('shows a call waiting for its callback, with its expiry, until the result arrives', () => {
    const tree = emptyTree();
    const assistant = { id: `${ROOT}:2`, runId: ROOT, index: 2, role: 'assistant', content: null };
    const call = { id: 'call_dep', name: 'deploy', arguments: '{"service":"web"}' };
    applyEvent(tree, event('RUN_STARTED', { data: { input: 'deploy' } }));
    applyEvent(
      tree,
      event('STEP_COMPLETED', { stepId: assistant.id, snapshot: { ...assistant, toolCalls: [call] } as never }),
    );
    expect(callOf(tree, ROOT, 'call_dep')?.status).toBe('running');

    const data = { toolCallId: 'call_dep', tool: 'deploy', workflowId: ROOT, runId: ROOT, expiresAt: 90_000 };
    applyEvent(tree, event('TOOL_CALLBACK_WAITING', { data }));
    expect(callOf(tree, ROOT, 'call_dep')).toMatchObject({ status: 'waiting_callback', callbackExpiresAt: 90_000 });

    const result = { id: `${ROOT}:3`, runId: ROOT, index: 3, role: 'tool', toolCallId: 'call_dep', content: 'live' };
    applyEvent(tree, event('STEP_COMPLETED', { stepId: result.id, snapshot: result as never }));
    expect(callOf(tree, ROOT, 'call_dep')).toMatchObject({ status: 'done', result: 'live' });
    expect(tree.runs[ROOT].notices).toEqual([]);
  });
});
