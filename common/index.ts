// Workflow-safe entry point: schemas, types and pure helpers shared by workflows, worker, client and bridge.
export * from './by-name';
export * from './errors';
export * from './limits';
export * from './limit-bounds';
export * from './model-settings';
export * from './names';
export * from './output-schema';
export * from './search-attributes';
export * from './registry';
export * from './run';
export * from './run-origin';
export * from './run-status';
export * from './sizes';
export * from './specs';
export * from './steps';
export * from './events';
export * from './event-data';
export * from './wire-sinks';
export * from './workflow-agents';
export * from './permissions';
export * from './prices';
export * from './budgets';
export * from './approval-inbox';
export * from './callbacks';
// The messages' payload types only: the definitions themselves are imported from './messages' where they are used.
export type { ControlRequest, ControlState, RunState } from './messages';
