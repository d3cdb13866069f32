// The worker's workflowsPath: every workflow type Agio registers.
export { agentRun } from './agent-run';
export { agentByName } from './agent-by-name';
export { loopAgentRun } from './loop-agent';
export { parallelAgentRun } from './parallel-agent';
export { sequentialAgentRun } from './sequential-agent';
export { webhookDelivery } from './webhook-delivery';
export { agioSession } from './session-runner';
export { bulkRedrive } from './bulk-redrive';
