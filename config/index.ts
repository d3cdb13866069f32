// Runtime configuration: what the worker (worker/main.ts), the bridge (bridge/main.ts) and `agio serve` (cli/serve.ts)
// compose from — the environment, the Temporal connection, the stores, the live lane and the model provider.
export { AgioEnv, loadEnv } from './env';
export {
  DEFAULT_TEMPORAL_ADDRESS,
  connectClient,
  connectWorker,
  ensureSearchAttributes,
  localTarget,
  registerSearchAttributes,
  searchAttributeCommands,
  SearchAttributesMissingError,
  temporalTarget,
  type TemporalTarget,
} from './temporal';
export { storesFromEnv } from './stores';
export { workspaceOptionsFromEnv, type WorkspaceOptions } from './workspaces';
export { workflowBundleFromEnv } from './workflow-bundle';
export { liveLaneFromEnv } from './live-lane';
export { callbackOptionsFromEnv, serveCallbackSecret } from './callbacks';
export { modelConfigFromEnv } from './model';
export { pricesFromEnv } from './prices';
export { dataConverterOption, parseCodecKeys, payloadCodecFromEnv } from './codec-keys';
export { AesGcmPayloadCodec, PayloadDecryptionError, type CodecKey } from './payload-codec';
