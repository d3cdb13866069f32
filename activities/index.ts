// Worker-side entry point for activities: binds the model, tools and workspace into the activity functions.
import { createCallModel, type ModelConfig, type StepStreamSinkFactory } from './model';
import { createToolActivities } from './run-tool';
import type { ToolRegistry } from './tools/registry';

/** What the activities need from the worker. */
export interface ActivityDeps {
  model: ModelConfig;
  tools: ToolRegistry;
  /** Absolute directory under which every run gets its workspace. */
  workspaceRoot: string;
  /** Publishes model deltas to the run's event stream. */
  streamSink?: StepStreamSinkFactory;
}

/** All of Agio's activities, bound to their dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    callModel: createCallModel(deps.model, deps.tools, deps.streamSink),
    ...createToolActivities(deps.tools, deps.workspaceRoot),
  };
}

/** The activity functions as workflows see them (imported with `import type`). */
export type AgioActivities = ReturnType<typeof createActivities>;

export type { CallModelInput, CallModelOutput, ModelConfig, StepStreamSink } from './model';
export type { RunToolInput, RunToolOutput } from './run-tool';
