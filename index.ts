// The package's main entry point (`agio`): the agent specs, the worker, the client and the bridge. Workflow code and
// anything else bundled for Temporal's workflow sandbox imports `agio/specs` only.
export * from './common';
export * from './worker';
export * from './client';
export * from './bridge';
