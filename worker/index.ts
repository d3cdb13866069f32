// Worker entry point (`agio/worker`): createWorker and defineTool, agents files, stores, the live lanes and the
// workflow bundle, for a project that runs Agio's worker in its own process.
export { createWorker, DEFAULT_SHUTDOWN_GRACE_TIME, type AgioWorker, type CreateWorkerOptions } from './create-worker';
export { defineTool, type ToolContext, type ToolDefinition, type ToolOutput } from '../activities/tools/define-tool';
export {
  defineCallbackTool,
  type CallbackToolContext,
  type CallbackToolDefinition,
} from '../activities/tools/define-callback-tool';
export { httpCallbackTool } from '../activities/callbacks/http-callback-tool';
export { defineRemoteAgentTool } from '../activities/a2a/remote-agent-tool';
export { RemoteAgentConfig } from '../common/remote-agents';
export { CallbackToolConfig } from '../activities/callbacks/http-template';
export type { CallbackOptions } from '../activities/callbacks/start-callback';
export { builtinTools } from '../activities/tools/builtin';
export type { ModelConfig } from '../activities/model/call-model';
export { McpServerConfig, type McpServerConfigInput } from '../activities/tools/mcp/config';
export {
  AgentsFile,
  AgentsFileError,
  loadAgentsFile,
  parseAgentsFile,
  type LoadedAgents,
  type ToolRef,
} from './agents-file';
export { EXAMPLE_AGENTS_FILE, agentsToServe, agentsWithToolsToServe, type AgentsWithTools } from './example-agents';
export { checkAgentsFileTools } from './agents-file-tools';
export { loadToolModule, loadToolModules, ToolModuleError } from './tool-modules';
export { AGIO_WORKFLOWS, bundleWorkflows } from './workflow-bundle-options';
export { PREBUILT_WORKFLOW_BUNDLE } from './prebuilt-bundle';
export { type VersioningOptions } from './versioning';
export { createMemoryStores, createMongoStores, type Stores } from '../stores';
export { InProcessLane } from '../live/in-process-lane';
export { NatsLane } from '../live/nats-lane';
export { AesGcmPayloadCodec, PayloadDecryptionError, type CodecKey } from '../config/payload-codec';
export { payloadCodecFromEnv } from '../config/codec-keys';
export type { LiveLane } from '../live/lane';
// The Temporal SDK classes a worker needs, from the very version Agio pins (a second copy would not interoperate).
export { NativeConnection, Runtime, DefaultLogger } from '@temporalio/worker';
