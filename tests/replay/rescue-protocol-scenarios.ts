// The scenarios recorded since release 0.8.0: a fork's run started from a seed of copied steps, and a frontend tool
// of an AG-UI client that waits in workflow code for the client's answer.
import type { Step } from '../../common';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { member, waitForEvent, type Scenario } from './scenario';

/** The steps a fork at step 4 of run `replay-source` copies: instructions, the ask, one tool call and its result. */
const forkedSteps: Step[] = [
  { id: 'replay-source:0', runId: 'replay-source', index: 0, role: 'system', content: 'You are forked.' },
  { id: 'replay-source:1', runId: 'replay-source', index: 1, role: 'user', content: 'list the files' },
  {
    id: 'replay-source:2',
    runId: 'replay-source',
    index: 2,
    role: 'assistant',
    content: null,
    toolCalls: [{ id: 'call_src', name: 'ls', arguments: '{}' }],
  },
  { id: 'replay-source:3', runId: 'replay-source', index: 3, role: 'tool', content: 'a.txt', toolCallId: 'call_src' },
];

export const rescueProtocolScenarios: Scenario[] = [
  {
    // A fork: RUN_STARTED names its origin, the seed's steps are committed as the run's own, one model call follows.
    name: 'agent-run-seeded',
    script: (model) => model.scriptFor('You are forked.', text('One file: a.txt.')),
    args: [
      {
        agent: member('forked'),
        input: 'list the files',
        seed: { steps: forkedSteps, origin: { forkedFrom: 'replay-source', step: 4 } },
      },
    ],
  },
  {
    // A frontend tool (AG-UI): the call waits in workflow code, the client's answer comes as a completeCallback update.
    name: 'agent-run-client-tool',
    script: (model) =>
      model.scriptFor(
        'You are picker.',
        toolCalls([toolCall('pick_color', { among: ['red', 'blue'] }, { id: 'call_pick' })]),
        text('You picked blue.'),
      ),
    args: [
      {
        agent: member('picker', {
          clientTools: [
            {
              name: 'pick_color',
              description: 'Asks the user to pick a color in the page.',
              parameters: { type: 'object', properties: { among: { type: 'array', items: { type: 'string' } } } },
              timeoutMs: 60_000,
            },
          ],
        }),
        input: 'let me pick a color',
      },
    ],
    drive: async (run) => {
      await waitForEvent(run, (e) => e.type === 'TOOL_CALLBACK_WAITING');
      await run.completeCallback('call_pick', { result: 'blue' }, { via: 'client_tool' });
    },
  },
];
