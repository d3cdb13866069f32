// The scenarios recorded since release 0.7.0: runs that meet the systems around them. A user message read at the next
// turn, a callback tool that waits in workflow code for its outside result, and an approval escalated at its expiry.
import { z } from 'zod';
import { defineCallbackTool } from '../../activities/tools/define-callback-tool';
import { text, toolCall, toolCalls } from '../../devkit/scripted-model-server';
import { member, waitForEvent, waitUntil, type Scenario } from './scenario';

/** The callback tool the recorder's worker offers: its start does nothing, the scenario completes it. */
export const replayCallbackTool = defineCallbackTool({
  name: 'await_ci',
  description: 'Starts the CI pipeline of a ref; its result comes back later.',
  parameters: z.object({ ref: z.string() }),
  waitTimeoutMs: 60_000,
  async start() {},
});

export const integrationScenarios: Scenario[] = [
  {
    // A message enqueued while the first model call runs: USER_MESSAGE, then a user step before the second call.
    name: 'agent-run-user-message',
    script: (model) =>
      model.scriptFor(
        'You are listener.',
        toolCalls([toolCall('ls', {})], { hangMs: 1500 }),
        text('Listed, and read the message.'),
      ),
    args: [{ agent: member('listener'), input: 'list the files' }],
    drive: async (run, model) => {
      await waitUntil('the first model call is under way', () => model.requests.length > 0);
      await run.message('also say hello', { messageId: 'msg-replay-1', by: 'recorder' });
    },
  },
  {
    // A callback tool: the startCallbackTool activity, TOOL_CALLBACK_WAITING, the completeCallback update, the answer.
    name: 'agent-run-callback-tool',
    script: (model) =>
      model.scriptFor(
        'You are builder.',
        toolCalls([toolCall('await_ci', { ref: 'main' }, { id: 'call_ci' })]),
        text('CI is green.'),
      ),
    args: [{ agent: member('builder', { tools: ['await_ci'] }), input: 'run CI on main' }],
    drive: async (run) => {
      await waitForEvent(run, (e) => e.type === 'TOOL_CALLBACK_WAITING');
      await run.completeCallback('call_ci', { result: 'green' });
    },
  },
  {
    // An ask that expires after 1 s and escalates to the role `lead`, approved by a lead quoting the new binding.
    name: 'agent-run-approval-escalated',
    script: (model) =>
      model.scriptFor(
        'You are guarded.',
        toolCalls([toolCall('ls', {}, { id: 'call_ls' })]),
        text('Listed once the lead approved.'),
      ),
    args: [
      {
        agent: member('guarded', {
          permissions: [{ tool: 'ls', action: 'ask', expiresAfterMs: 1000, onExpiry: 'escalate', escalateTo: 'lead' }],
        }),
        input: 'list the files',
      },
    ],
    drive: async (run) => {
      const expired = await waitForEvent(run, (e) => e.type === 'TOOL_AUTH_EXPIRED');
      const binding = expired.type === 'TOOL_AUTH_EXPIRED' ? expired.data.binding : undefined;
      await run.approve('call_ls', { by: 'recorder', roles: ['lead'], ...(binding ? { binding } : {}) });
    },
  },
];
