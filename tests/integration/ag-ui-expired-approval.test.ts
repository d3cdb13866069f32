// AG-UI interrupts of approvals whose ask rule expired: with `onExpiry: pause` the run pauses and the call still waits
// for a decision, so resolving the interrupt (even the one issued before the expiry) approves the call; with the default
// `onExpiry: deny` the expiry decided it, and resolving the interrupt afterwards is refused `interrupt_expired`.
import { buildResumeArray } from '@ag-ui/client';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { agUiAgent, runRecorded } from '../helpers/ag-ui-client';
import { askingAgent, keyOf, recordsOf } from '../helpers/approvals';
import { request } from '../helpers/bridge';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

const TOKEN = 'agui-expiry-token';
const pausing = askingAgent('agui-expiry-pause', {
  permissions: [{ tool: 'record', action: 'ask', expiresAfterMs: 1500, onExpiry: 'pause' }],
});
const denying = askingAgent('agui-expiry-deny', {
  permissions: [{ tool: 'record', action: 'ask', expiresAfterMs: 1500 }],
});

describe('AG-UI interrupts of expired approvals', () => {
  const bed = useTestBed({
    tools: testTools,
    agents: [pausing, denying],
    bridge: { tokens: `${TOKEN}:default:agui-expiry-user` },
  });

  /** Runs `agent` on `thread` until its approval interrupt; answers the interrupt and the durable run's id. */
  const interrupted = async (agent: typeof pausing, thread: string) => {
    bed.server.scriptFor(
      keyOf(agent),
      toolCalls([toolCall('record', { label: thread }, { id: `call_${thread}` })]),
      text(`${agent.name} is done`),
    );
    const client = agUiAgent(bed.bridge, agent.name, thread, [{ id: 'u1', role: 'user', content: 'record it' }]);
    await runRecorded(client, { runId: 'turn-1' });
    expect(client.pendingInterrupts).toHaveLength(1);
    const [interrupt] = client.pendingInterrupts;
    expect(interrupt.expiresAt).toBeDefined();
    const runId = (interrupt.metadata as { agio: { runId: string } }).agio.runId;
    return { client, interrupt, runId };
  };

  it('approves a call that waits on after its expiry paused the run', async () => {
    const { interrupt, runId } = await interrupted(pausing, 'thread-pause');
    const handle = bed.agio.getHandle(runId);
    await waitFor('the expiry paused the run', async () => (await handle.state()).pauseReason === 'approval_expired');

    // The same input again replays the run: the call's interrupt now carries no expiry (HttpAgent refuses to answer
    // an interrupt past its expiresAt).
    const client = agUiAgent(bed.bridge, pausing.name, 'thread-pause', [
      { id: 'u1', role: 'user', content: 'record it' },
    ]);
    await runRecorded(client, { runId: 'turn-1' });
    // The call's interrupt, and the run's pause (RUN_PAUSED, published as the expiry paused the waiting run).
    expect(client.pendingInterrupts).toHaveLength(2);
    const again = client.pendingInterrupts.find((i) => i.reason === 'tool_call')!;
    expect(again).toMatchObject({ toolCallId: 'call_thread-pause' });
    const pause = client.pendingInterrupts.find((i) => i.reason === 'agio:run_paused')!;
    expect(pause).toMatchObject({
      metadata: { agio: { reason: 'approval_expired', by: 'agio' } },
    });
    expect(again.expiresAt).toBeUndefined();

    // A raw client answering the interrupt issued before the expiry is not refused either: the call still waited.
    const raw = request(`${bed.bridge.url}/ag-ui/agents/${pausing.name}`, {
      token: TOKEN,
      body: {
        threadId: 'thread-pause',
        runId: 'turn-2',
        messages: [],
        resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }],
      },
    });
    // The decision is taken; the run stays paused (and the stream open) until someone resumes it.
    await waitFor('the call was approved', async () => (await handle.state()).pendingApprovals.length === 0);
    await handle.resume({ reason: 'approved after expiry' });
    const streamed = String((await raw).body);
    expect(streamed).not.toMatch(/interrupt_expired/);
    expect(streamed).toMatch(/"type":"RUN_FINISHED"/);
    expect(recordsOf(runId).map((r) => r.label)).toEqual(['thread-pause']);

    // Resolving the replayed interrupt now (a client retrying) decides nothing twice and follows the run to its end.
    const resume = buildResumeArray(client.pendingInterrupts, {
      [again.id]: { status: 'resolved', payload: { approved: true } },
      [pause.id]: { status: 'cancelled' },
    });
    const after = await runRecorded(client, { runId: 'turn-3', resume });
    expect(after.events.find((e) => e.type === 'RUN_ERROR')).toBeUndefined();
    expect(after.result).toBe('agui-expiry-pause is done');
    expect(recordsOf(runId)).toHaveLength(1);

    // The pause's interrupt resolved once the run has ended resumes nothing and is no error (it answered 500).
    const stale = await request(`${bed.bridge.url}/ag-ui/agents/${pausing.name}`, {
      token: TOKEN,
      body: {
        threadId: 'thread-pause',
        runId: 'turn-4',
        messages: [],
        resume: [{ interruptId: pause.id, status: 'resolved' }],
      },
    });
    expect(stale.status).toBe(200);
    expect(String(stale.body)).not.toMatch(/"type":"RUN_ERROR"/);
    expect(String(stale.body)).toMatch(/"type":"RUN_FINISHED"/);
  });

  it('refuses interrupt_expired once the expiry denied the call', async () => {
    const { interrupt, runId } = await interrupted(denying, 'thread-deny');
    await bed.agio.getHandle(runId).result();
    const answer = await request(`${bed.bridge.url}/ag-ui/agents/${denying.name}`, {
      token: TOKEN,
      body: {
        threadId: 'thread-deny',
        runId: 'turn-2',
        messages: [],
        resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }],
      },
    });
    expect(String(answer.body)).toMatch(/"code":"interrupt_expired"/);
    expect(recordsOf(runId)).toEqual([]);
  });
});
