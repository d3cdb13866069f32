// A remote A2A agent as a tool: defineRemoteAgentTool (in code, or from an agents file's `remoteAgents:`) and the two
// activities a call runs under patch `agio-a2a-remote-agents` (workflows/agent-loop/remote-agent-tool.ts):
// sendRemoteMessage,
// then followRemoteTask. A run from before the patch runs the tool as a plain tool (send and follow in one attempt).
import { ApplicationFailure } from '@temporalio/activity';
import { z } from 'zod';
import { A2AError } from '@a2a-js/sdk/errors';
import {
  REMOTE_AGENT_TIMEOUT_MS,
  type FollowRemoteTaskInput,
  type RemoteAgentConfig,
  type RemoteToolResult,
  type SendRemoteMessageInput,
  type SendRemoteMessageOutput,
} from '../../common/remote-agents';
import { ErrorType } from '../../common';
import type { ToolDefinition } from '../tools/define-tool';
import type { ToolRegistry } from '../tools/registry';
import { callIds, callMessage, connectRemoteAgent, followRemote, sendToRemote } from './remote-agent';

/** What the model sends a remote agent. */
const RemoteAgentArgs = z.object({
  message: z.string().min(1).max(32_000).describe('The complete request: the remote agent sees nothing else.'),
});

/** A tool that hands the model's message to a remote A2A agent and answers with what the agent's task produced. */
export function defineRemoteAgentTool(config: RemoteAgentConfig): ToolDefinition<typeof RemoteAgentArgs> {
  const timeoutMs = config.timeoutMs ?? REMOTE_AGENT_TIMEOUT_MS;
  return {
    name: config.name,
    description: config.description,
    parameters: RemoteAgentArgs,
    workspace: 'none',
    // Not retried as a whole: a second attempt would send the message again (the patched path never does).
    idempotent: false,
    timeoutMs,
    remoteAgent: config,
    execute: async ({ message }, ctx) => {
      const client = await connectRemoteAgent(config);
      const sent = await sendToRemote(client, callMessage(message, callIds(ctx.runId, ctx.toolCallId)));
      const out = 'result' in sent ? sent.result : await followRemote(client, sent.task, Date.now() + timeoutMs);
      return out;
    },
  };
}

/** A remote agent's refusal (a JSON-RPC error) is the call's result; anything else (the network) is retried. */
function refusal(err: unknown): RemoteToolResult | undefined {
  if (err instanceof A2AError) return { content: `Error: the remote agent refused: ${err.message}`, isError: true };
  // An address the policy forbids (the card's, or the interface it names): trying again changes nothing.
  for (let e = err as Error | undefined; e; e = e.cause as Error | undefined)
    if (e.name === 'ForbiddenWebhookUrlError')
      return {
        content: `Error: the remote agent may not be reached: ${e.message.replace(/^url: /, '')}`,
        isError: true,
      };
  return undefined;
}

/** The activities of remote agent tools, over the worker's tools. */
export function createRemoteAgentActivities(tools: ToolRegistry) {
  const configOf = (name: string): RemoteAgentConfig => {
    const config = tools.find(name)?.remoteAgent;
    if (!config)
      throw ApplicationFailure.create({
        type: ErrorType.UnknownTool,
        nonRetryable: true,
        message: `this worker has no remote agent tool "${name}"`,
      });
    return config;
  };
  return {
    /** Sends a call's message (the same message id every attempt); the task to follow, or the result at once. */
    async sendRemoteMessage(input: SendRemoteMessageInput): Promise<SendRemoteMessageOutput> {
      const config = configOf(input.tool);
      let args: z.infer<typeof RemoteAgentArgs>;
      try {
        args = RemoteAgentArgs.parse(JSON.parse(input.arguments || '{}'));
      } catch (err) {
        return {
          result: { content: `Error: invalid arguments for "${input.tool}": ${(err as Error).message}`, isError: true },
        };
      }
      try {
        const client = await connectRemoteAgent(config);
        return await sendToRemote(client, callMessage(args.message, callIds(input.runId, input.toolCallId)));
      } catch (err) {
        const refused = refusal(err);
        if (refused) return { result: refused };
        throw err;
      }
    },
    /** Follows a remote task to its end, heartbeating; a retry (another worker) follows the same task. */
    async followRemoteTask(input: FollowRemoteTaskInput): Promise<RemoteToolResult> {
      const config = configOf(input.tool);
      try {
        return await followRemote(await connectRemoteAgent(config), input.task, input.deadline);
      } catch (err) {
        const refused = refusal(err);
        if (refused) return refused;
        throw err;
      }
    },
  };
}
