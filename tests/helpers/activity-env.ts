// Activities run in a MockActivityEnvironment for unit tests: a quiet environment, a typed run, and a registry of small
// tools (echo, sources, boom, big) with the model settings that go with them.
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { z } from 'zod';
import type { ModelConfig } from '../../activities/model/call-model';
import { defineTool, type ToolDefinition } from '../../activities/tools/define-tool';
import { ToolRegistry } from '../../activities/tools/registry';

export const quiet = () => new DefaultLogger('ERROR', () => undefined);
export const newEnv = () => new MockActivityEnvironment({}, { logger: quiet() });

/** Runs an activity in `env` with its result typed (MockActivityEnvironment.run cannot infer it). */
export function runIn<A extends unknown[], R>(
  env: MockActivityEnvironment,
  fn: (...args: A) => Promise<R>,
  ...args: A
): Promise<R> {
  return env.run(fn, ...args) as Promise<R>;
}

export const seen: { workspace?: string; idempotencyKey?: string } = {};
export const tools: ToolDefinition[] = [
  defineTool({
    name: 'echo',
    description: 'Repeats text.',
    parameters: z.object({
      text: z.string().describe('what to repeat'),
      times: z.number().int().positive().optional(),
    }),
    execute: async ({ text, times }, ctx) => {
      seen.workspace = ctx.workspace;
      seen.idempotencyKey = ctx.idempotencyKey;
      return text.repeat(times ?? 1);
    },
  }),
  defineTool({
    name: 'sources',
    description: 'Answers with metadata.',
    parameters: z.object({}),
    execute: async () => ({ content: 'found 2', metadata: { sources: ['a', 'b'] } }),
  }),
  defineTool({
    name: 'boom',
    description: 'Always throws.',
    parameters: z.object({}),
    execute: async () => {
      throw new Error('disk on fire');
    },
  }),
  defineTool({
    name: 'big',
    description: 'Returns a lot.',
    parameters: z.object({ bytes: z.number().int() }),
    execute: async ({ bytes }) => ({ content: 'x'.repeat(bytes), metadata: { exitCode: 0 } }),
  }),
];
export const registry = new ToolRegistry(tools);
export const modelConfig = (baseURL = 'http://127.0.0.1:9/v1'): ModelConfig => ({
  baseURL,
  apiKey: 'test-key',
  defaultModel: 'scripted-model',
});
