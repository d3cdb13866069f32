// `agio/testing`: run your own agents and tools in your own tests (jest, vitest, node:test) against a real Temporal
// server and worker, with a scripted OpenAI-compatible model server answering in place of the model.
export { startTestEnvironment, type TestEnvironment, type TestEnvironmentOptions } from './test-environment';
export {
  ScriptedModelServer,
  text,
  toolCall,
  toolCalls,
  type RecordedRequest,
  type ScriptedResponder,
  type ScriptedToolCall,
  type ScriptedTurn,
} from '../devkit/scripted-model-server';
