// The worker's workflowsPath: every workflow type Agio registers.
export { agentRun } from './agent-run';
