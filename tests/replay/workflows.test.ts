// Replays every recorded history of every release (histories/<version>/, see README.md) against today's workflow code:
// a change that breaks the runs an earlier release started fails here. `npm run record-histories` records them.
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker, DefaultLogger, Runtime } from '@temporalio/worker';
import { AGIO_WORKFLOWS, bundleWorkflows } from '../../worker/workflow-bundle-options';
import { allFixtures, workflowIdOf, type Fixture } from './fixtures';
import {
  activityTypes,
  childIds,
  closingEvent,
  eventTypes,
  localActivityTypes,
  patchIds,
  signalsSent,
  workflowType,
} from './recorded-history';

const fixtures = allFixtures();
const fixture = (id: string): Fixture => {
  const found = fixtures.find((f) => `${f.release}/${f.name}` === id);
  if (!found) throw new Error(`no recorded history ${id}`);
  return found;
};
const history = (id: string) => fixture(id).history;
/** The patch under which 0.2.0's runs move to a newer worker version at continue-as-new (a patch id never changes). */
const UPGRADE_PATCH = 'agio-upgrade-on-continue-as-new';
const childrenOf = (id: string) =>
  childIds(history(id)).map((c) => c.slice(workflowIdOf(fixture(id), fixtures).length + 1));

describe('workflow replay', () => {
  jest.setTimeout(120_000);
  /** Each history's replay, by `<release>/<name>`: undefined when it replayed, else its error. */
  const replayed = new Map<string, Error | undefined>();
  beforeAll(async () => {
    try {
      Runtime.install({ logger: new DefaultLogger('ERROR') });
    } catch {
      // installed by another test file in this process
    }
    // Bundled once, as a worker bundles it, and every history replayed by one replay worker, one after the other (as
    // `agio replay-check` does): a worker per history would spend most of the time starting workers.
    const code = await bundleWorkflows(AGIO_WORKFLOWS);
    const histories = fixtures.map((f) => ({ history: f.history, workflowId: workflowIdOf(f, fixtures) }));
    let i = 0;
    for await (const result of Worker.runReplayHistories({ workflowBundle: { code } }, histories))
      replayed.set(`${fixtures[i].release}/${fixtures[i++].name}`, result.error);
    // Every history of every release, on a CPU the other test files share: about 90 s under a loaded full run here,
    // more than 120 s once beside other load. The limit only catches a hang.
  }, 360_000);

  it('finds the histories of every release', () => {
    expect(new Set(fixtures.map((f) => f.release)).size).toBeGreaterThanOrEqual(2);
    expect(fixtures.length).toBeGreaterThanOrEqual(22);
  });

  it.each(fixtures.map((f) => `${f.release}/${f.name}`))('replays %s without a determinism error', (id) => {
    expect(replayed.has(id)).toBe(true);
    expect(replayed.get(id)).toBeUndefined();
  });

  it('fails replay when the workflow code changes the commands it issues', async () => {
    // The same way the histories above are replayed (one replay worker for a batch), so that way can fail.
    const f = fixture('0.1.0/agent-run-parallel-tools');
    const replays = Worker.runReplayHistories({ workflowsPath: require.resolve('../fixtures/changed-workflows') }, [
      { history: f.history, workflowId: workflowIdOf(f, fixtures) },
    ]);
    const errors: unknown[] = [];
    for await (const result of replays) errors.push(result.error);
    expect(errors).toEqual([expect.any(DeterminismViolationError)]);
  });
});

// What the histories hold: a re-recording that no longer takes the path a history is kept for fails here by name.
describe('the 0.1.0 histories', () => {
  it('parallel tool calls: four runTool activities', () => {
    expect(activityTypes(history('0.1.0/agent-run-parallel-tools')).filter((t) => t === 'runTool')).toHaveLength(4);
  });

  it('quick tools as local activities, the event log tail written after the terminal event', () => {
    const recorded = history('0.1.0/agent-run-event-log');
    const markers = recorded.events.flatMap((e) => e.markerRecordedEventAttributes?.markerName ?? []);
    expect(markers[0]).toBe('core_patch');
    expect(markers.filter((m) => m === 'core_local_activity').length).toBeGreaterThanOrEqual(4);
    expect(activityTypes(recorded)).toEqual([
      'resolveTools',
      'callModel',
      'runTool',
      'callModel',
      'callModel',
      'logEvents',
    ]);
  });

  it('the lean step path: tools resolved locally, turns riding on model calls, one local write at its end', () => {
    const local = localActivityTypes(history('0.1.0/agent-run-lean-steps'));
    expect(local).toEqual(['recordRun', 'resolveTools', 'runTool', 'runTool', 'persistSteps', 'recordRun']);
  });

  it.each([
    ['agent-run-agent-tool', 'agentRun', ['tool/call_helper']],
    ['agent-run-agent-tool-lean-steps', 'agentRun', ['tool/call_helper']],
    ['loop-agent', 'loopAgentRun', ['loop-0/0-drafter', 'loop-0/1-critic', 'loop-1/0-drafter', 'loop-1/1-critic']],
    // The last run of a loop that continued as new after each iteration, writing its event log as a root.
    ['loop-agent-event-log', 'loopAgentRun', ['loop-1/0-drafter', 'loop-1/1-critic']],
    ['sequential-agent', 'sequentialAgentRun', ['seq/0-researcher', 'seq/1-writer']],
    ['parallel-agent', 'parallelAgentRun', ['branch/0-north', 'branch/1-south']],
  ])('%s: %s with its child workflows', (name, type, children) => {
    expect(workflowType(history(`0.1.0/${name}`))).toBe(type);
    expect(childrenOf(`0.1.0/${name}`)).toEqual(children);
  });

  it.each([
    // Compaction: a local write of the compacted contents, then CONTEXT_COMPACTED, before the next model call.
    ['agent-run-compaction', 'agio-compaction', []],
    // A model call retried through an outage within the run's retry window.
    ['agent-run-outage', 'agio-model-retry-window', []],
    // Agent tools whose deadlines the parent keeps: one in time, one cancelled by the parent's timer.
    ['agent-run-agent-tool-deadline', 'agio-agent-tool-deadline', ['tool/call_quick', 'tool/call_slow']],
  ])('%s: recorded under its patch %s', (name, patch, children) => {
    const recorded = history(`0.1.0/${name}`);
    expect(patchIds(recorded)).toContain(patch);
    if (patch === 'agio-compaction') expect(localActivityTypes(recorded)).toContain('storeCompacted');
    expect(childrenOf(`0.1.0/${name}`)).toEqual(children);
  });
});

describe('the 0.2.0 histories of long-lived runs', () => {
  it.each([
    // name, workflow type, how it closed, events it must hold (without EVENT_TYPE_), child workflows
    [
      'agent-run-paused',
      'agentRun',
      'WORKFLOW_EXECUTION_COMPLETED',
      ['WORKFLOW_EXECUTION_UPDATE_ACCEPTED', 'WORKFLOW_EXECUTION_SIGNALED'],
      [],
    ],
    [
      'agent-run-approval-wait',
      'agentRun',
      'WORKFLOW_EXECUTION_COMPLETED',
      ['WORKFLOW_EXECUTION_UPDATE_ACCEPTED', 'WORKFLOW_EXECUTION_UPDATE_COMPLETED'],
      [],
    ],
    ['agent-run-approval-timeout', 'agentRun', 'WORKFLOW_EXECUTION_COMPLETED', ['TIMER_STARTED', 'TIMER_FIRED'], []],
    ['agent-run-continue-as-new', 'agentRun', 'WORKFLOW_EXECUTION_CONTINUED_AS_NEW', [], []],
    ['agent-run-continued', 'agentRun', 'WORKFLOW_EXECUTION_COMPLETED', [], []],
    [
      'agent-run-cancelled',
      'agentRun',
      'WORKFLOW_EXECUTION_CANCELED',
      ['WORKFLOW_EXECUTION_CANCEL_REQUESTED', 'ACTIVITY_TASK_CANCEL_REQUESTED'],
      [],
    ],
    ['agent-run-failed', 'agentRun', 'WORKFLOW_EXECUTION_FAILED', ['ACTIVITY_TASK_FAILED'], []],
    [
      'agent-run-lead',
      'agentRun',
      'WORKFLOW_EXECUTION_COMPLETED',
      ['CHILD_WORKFLOW_EXECUTION_COMPLETED'],
      ['tool/call_scout'],
    ],
    [
      'agent-run-child',
      'agentRun',
      'WORKFLOW_EXECUTION_COMPLETED',
      ['SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED'],
      [],
    ],
    [
      'loop-agent-continue-as-new',
      'loopAgentRun',
      'WORKFLOW_EXECUTION_CONTINUED_AS_NEW',
      [],
      ['loop-0/0-drafter', 'loop-0/1-critic'],
    ],
  ])('%s: %s recorded under the upgrade patch, closing with %s', (name, type, closing, holds, children) => {
    const recorded = history(`0.2.0/${name}`);
    expect(workflowType(recorded)).toBe(type);
    expect(patchIds(recorded)).toContain(UPGRADE_PATCH);
    expect(closingEvent(recorded)).toBe(closing);
    expect(eventTypes(recorded)).toEqual(expect.arrayContaining(holds));
    expect(childrenOf(`0.2.0/${name}`)).toEqual(children);
  });

  it('the continued run follows the first run of its chain', () => {
    expect(workflowIdOf(fixture('0.2.0/agent-run-continued'), fixtures)).toBe('replay-agent-run-continue-as-new');
  });

  it("the child's history publishes its events to the root by signal", () => {
    expect(workflowIdOf(fixture('0.2.0/agent-run-child'), fixtures)).toBe('replay-agent-run-lead/tool/call_scout');
    const sent = signalsSent(history('0.2.0/agent-run-child'));
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every(([, target]) => target === 'replay-agent-run-lead')).toBe(true);
  });
});

describe('the 0.3.0 histories of structured output', () => {
  it('a repaired answer: three model calls (the answer off the schema, the tool turn, the fitting answer) and one tool', () => {
    const recorded = history('0.3.0/agent-run-structured-output');
    expect(closingEvent(recorded)).toBe('WORKFLOW_EXECUTION_COMPLETED');
    expect([...activityTypes(recorded), ...localActivityTypes(recorded)].filter((t) => t === 'callModel')).toHaveLength(
      3,
    );
  });

  it('an answer that never fits: the run fails after its one repair', () => {
    const recorded = history('0.3.0/agent-run-structured-output-failed');
    expect(closingEvent(recorded)).toBe('WORKFLOW_EXECUTION_FAILED');
    expect(JSON.stringify(recorded)).toContain('OutputValidationError');
  });

  it("a sub-agent's parsed output goes into the sequence's state", () => {
    const recorded = history('0.3.0/sequential-agent-structured-output');
    expect(workflowType(recorded)).toBe('sequentialAgentRun');
    expect(closingEvent(recorded)).toBe('WORKFLOW_EXECUTION_COMPLETED');
    expect(childrenOf('0.3.0/sequential-agent-structured-output')).toHaveLength(2);
  });
});

describe('the 0.4.0 histories', () => {
  it('a misspelled tool name: the run fails with UnknownTool before any model call', () => {
    const recorded = history('0.4.0/agent-run-unknown-tool');
    expect(closingEvent(recorded)).toBe('WORKFLOW_EXECUTION_FAILED');
    expect(JSON.stringify(recorded)).toContain('UnknownTool');
    expect([...activityTypes(recorded), ...localActivityTypes(recorded)]).not.toContain('callModel');
  });
});

describe('the 0.6.0 histories', () => {
  it('a nested run keeps its own log: its history sends its parent only its start and end', () => {
    const child = fixture('0.6.0/agent-run-child');
    const parentId = 'replay-agent-run-lead';
    expect(workflowIdOf(child, fixtures).startsWith(`${parentId}/tool/`)).toBe(true);
    expect(patchIds(history('0.6.0/agent-run-lead'))).toContain('agio-nested-event-logs');
    const sent = signalsSent(child.history);
    // Its RUN_STARTED and RUN_COMPLETED copies (0.2.0's child sent every event it had).
    expect(sent).toHaveLength(2);
    expect(sent.every(([, target]) => target === parentId)).toBe(true);
    expect(signalsSent(history('0.2.0/agent-run-child')).length).toBeGreaterThan(2);
  });

  it('a start by name resolves the agent with a local activity, then continues as new as its own type', () => {
    const first = history('0.6.0/agent-by-name');
    expect(workflowType(first)).toBe('agentByName');
    expect(localActivityTypes(first)).toEqual(['resolveAgent']);
    expect(closingEvent(first)).toBe('WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
    const resolved = fixture('0.6.0/agent-by-name-resolved');
    expect(workflowType(resolved.history)).toBe('agentRun');
    expect(workflowIdOf(resolved, fixtures)).toBe('replay-agent-by-name');
  });
});

describe('the 0.7.0 histories', () => {
  it('every run opens under the patches of the integration release', () => {
    const patches = patchIds(history('0.7.0/agent-run-approval-wait'));
    for (const id of [
      'agio-cost-budgets',
      'agio-waiting-search-attributes',
      'agio-user-messages',
      'agio-approval-inbox',
    ])
      expect(patches).toContain(id);
  });

  it('a user message is an accepted update read into the conversation before the next model call', () => {
    const recorded = history('0.7.0/agent-run-user-message');
    expect(eventTypes(recorded)).toContain('WORKFLOW_EXECUTION_UPDATE_ACCEPTED');
    expect(activityTypes(recorded).filter((t) => t === 'callModel')).toHaveLength(2);
    // The message, by its id, among the payloads the history holds (each a base64 JSON document).
    const payloads = [...JSON.stringify(recorded).matchAll(/"data":"([A-Za-z0-9+/=]+)"/g)].map(([, data]) =>
      Buffer.from(data, 'base64').toString('utf8'),
    );
    expect(payloads.some((p) => p.includes('"messageId":"msg-replay-1"'))).toBe(true);
  });

  it('a callback tool starts once, then waits in workflow code for the completeCallback update', () => {
    const recorded = history('0.7.0/agent-run-callback-tool');
    expect(patchIds(recorded)).toContain('agio-callback-tools');
    expect(activityTypes(recorded).filter((t) => t === 'startCallbackTool')).toHaveLength(1);
    expect(eventTypes(recorded)).toContain('WORKFLOW_EXECUTION_UPDATE_ACCEPTED');
  });

  it('an approval escalated at its expiry: its timer fired, then a decision by the role was taken', () => {
    const recorded = history('0.7.0/agent-run-approval-escalated');
    expect(eventTypes(recorded)).toEqual(expect.arrayContaining(['TIMER_FIRED', 'WORKFLOW_EXECUTION_UPDATE_ACCEPTED']));
    expect(closingEvent(recorded)).toBe('WORKFLOW_EXECUTION_COMPLETED');
  });
});

describe('the 0.8.0 histories', () => {
  it("a fork's run commits its seed's steps under agio-seeded-runs, then makes only the model call after them", () => {
    const recorded = history('0.8.0/agent-run-seeded');
    expect(patchIds(recorded)).toContain('agio-seeded-runs');
    expect(activityTypes(recorded).filter((t) => t === 'callModel')).toHaveLength(1);
    expect(closingEvent(recorded)).toBe('WORKFLOW_EXECUTION_COMPLETED');
  });

  it("a frontend tool's call starts nothing and waits in workflow code for the client's completeCallback update", () => {
    const recorded = history('0.8.0/agent-run-client-tool');
    expect(patchIds(recorded)).toContain('agio-client-tools');
    expect(activityTypes(recorded)).not.toContain('startCallbackTool');
    expect(eventTypes(recorded)).toContain('WORKFLOW_EXECUTION_UPDATE_ACCEPTED');
    expect(closingEvent(recorded)).toBe('WORKFLOW_EXECUTION_COMPLETED');
  });
});
