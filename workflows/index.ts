// The worker's workflowsPath: every workflow type Agio registers.
export { agentRun } from './agent-loop/agent-run';
export { agentByName } from './lifecycle/agent-by-name';
export { loopAgentRun } from './composite/loop-agent';
export { parallelAgentRun } from './composite/parallel-agent';
export { sequentialAgentRun } from './composite/sequential-agent';
export { webhookDelivery } from './jobs/webhook-delivery';
export { agioSession } from './jobs/session-runner';
export { bulkRedrive } from './jobs/bulk-redrive';
