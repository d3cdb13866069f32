// The peer's workflow: the bench agent (same instructions, one `bench_echo` tool) run by @temporalio/openai-agents'
// TemporalOpenAIRunner. Model calls run as the plugin's model activities; `bench_echo` is an activity
// (activityAsTool). With `stream: true` the workflow hosts a WorkflowStream, and the plugin's streaming model
// activity publishes every raw model event to it (signals, batched every 100 ms) for external subscribers.
import { Agent } from '@openai/agents-core';
import { activityAsTool, TemporalOpenAIRunner } from '@temporalio/openai-agents/workflow';
import { condition, defineSignal, setHandler } from '@temporalio/workflow';
import { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import type { benchEcho } from './activities';
import {
  PEER_BATCH_INTERVAL,
  PEER_TOPIC,
  SUBSCRIBER_DONE_SIGNAL,
  type PeerRunInput,
  type PeerRunOutput,
} from './protocol';

const echoTool = activityAsTool<typeof benchEcho>(
  {
    name: 'bench_echo',
    description: 'Echoes the number it is given.',
    parameters: {
      type: 'object',
      properties: { i: { type: 'integer' } },
      required: ['i'],
      additionalProperties: false,
    },
  },
  { startToCloseTimeout: '1 minute' },
);

const subscriberDone = defineSignal(SUBSCRIBER_DONE_SIGNAL);

export async function peerAgentWorkflow({
  input,
  maxTurns,
  stream,
  awaitSubscriber,
}: PeerRunInput): Promise<PeerRunOutput> {
  const agent = new Agent({
    name: 'bench',
    instructions: 'You are a benchmark agent.',
    model: 'scripted-model',
    tools: [echoTool],
  });
  // Started by the bench's own client (without the plugin), so the model activity options come from here.
  const runner = new TemporalOpenAIRunner({
    defaultModelParams: {
      startToCloseTimeout: '1 minute',
      streamingTopic: PEER_TOPIC,
      streamingBatchInterval: PEER_BATCH_INTERVAL,
    },
  });
  if (!stream) {
    const result = await runner.run(agent, input, { maxTurns });
    return { finalOutput: String(result.finalOutput ?? ''), modelCalls: result.rawResponses.length };
  }
  const workflowStream = new WorkflowStream();
  let drained = false;
  setHandler(subscriberDone, () => void (drained = true));
  // A first item, so a subscriber knows it is attached before the model answers (like Agio's RUN_STARTED).
  workflowStream.topic(PEER_TOPIC).publish({ type: 'run_started' });
  const result = await runner.run(agent, input, { maxTurns, stream: true });
  for await (const _event of result) {
    // The events come from each model activity's result; the live ones went to the WorkflowStream.
  }
  await result.completed;
  if (awaitSubscriber) {
    workflowStream.topic(PEER_TOPIC).publish({ type: 'run_finished' });
    await condition(() => drained, '60 seconds');
  }
  return { finalOutput: String(result.finalOutput ?? ''), modelCalls: result.rawResponses.length };
}
