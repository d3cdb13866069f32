// Bridge entry point (`agio/bridge`): the HTTP API and SSE streams as a Fastify app over an AgioClient.
export { createBridge, type BridgeOptions } from './server';
export { parseTokens, SCOPES, DEFAULT_SCOPES, type Grant, type Scope, type TokenTable } from './auth';
