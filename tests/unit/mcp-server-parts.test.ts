// The pure parts of Agio's MCP server: agents as tools (schemas, task support), run statuses as task statuses, and the
// lines progress and tasks/get show for a run's events and state.
import { defineAgent, type AgioEvent } from '../../common';
import type { RunStateView } from '../../client/run-state-view';
import { AgentToolArguments, agentTool, toolResultOf } from '../../protocols/mcp/agent-tools';
import { progressLine } from '../../protocols/mcp/progress';
import { statusLine, taskStatusOf } from '../../protocols/mcp/run-tasks';

const event = (fields: Record<string, unknown>): AgioEvent =>
  ({ runId: 'run-1', rootRunId: 'run-1', agent: 'a', depth: 0, offset: 0, ...fields }) as unknown as AgioEvent;

describe('MCP server parts', () => {
  it('declares an object output schema without its dialect, and no output schema for any other', () => {
    const withObject = defineAgent({
      name: 'o',
      outputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {} },
    });
    expect(agentTool(withObject).outputSchema).toEqual({ type: 'object', properties: {} });
    expect(agentTool(defineAgent({ name: 'a', outputSchema: { type: 'array' } })).outputSchema).toBeUndefined();
    expect(agentTool(defineAgent({ name: 'p' }))).toMatchObject({
      description: 'Run the Agio agent "p"',
      inputSchema: { type: 'object', required: ['input'], additionalProperties: false },
      execution: { taskSupport: 'optional' },
    });
    expect(agentTool(defineAgent({ name: 'p' })).inputSchema.$schema).toBeUndefined();
  });

  it('takes a prompt and a well-formed session id only', () => {
    expect(AgentToolArguments.safeParse({ input: 'hi', sessionId: 's-1' }).success).toBe(true);
    expect(AgentToolArguments.safeParse({ input: 'hi', sessionId: 'a b' }).success).toBe(false);
    expect(AgentToolArguments.safeParse({ input: 'hi', limits: {} }).success).toBe(false);
    expect(AgentToolArguments.safeParse({}).success).toBe(false);
  });

  it('gives structured content only for an object output of an agent with an object schema', () => {
    const output = { response: '[1]', output: [1], runId: 'run-1' } as never;
    expect(toolResultOf(output, true).structuredContent).toBeUndefined();
    const object = { response: '{"a":1}', output: { a: 1 }, runId: 'run-1' } as never;
    expect(toolResultOf(object, true).structuredContent).toEqual({ a: 1 });
    expect(toolResultOf(object, false).structuredContent).toBeUndefined();
  });

  it('maps run statuses onto task statuses', () => {
    expect(
      ['running', 'completed', 'cancelled', 'failed', 'terminated', 'timed_out'].map((s) => taskStatusOf(s as never)),
    ).toEqual(['working', 'completed', 'cancelled', 'failed', 'failed', 'failed']);
  });

  it('says what a run is doing: an approval first, then a pause, then its step', () => {
    const state = { pendingApprovals: [], currentStep: 3 } as unknown as RunStateView;
    expect(statusLine(state)).toBe('working on step 3');
    expect(statusLine({ ...state, paused: true } as RunStateView)).toBe('paused');
    const approval = { tool: 'deploy', toolCallId: 'c1' };
    expect(statusLine({ ...state, paused: true, pendingApprovals: [approval] } as unknown as RunStateView)).toBe(
      'waiting for a person to approve "deploy" (tool call c1)',
    );
  });

  it('shows tool calls, answers, approvals and nested runs, and leaves deltas out', () => {
    const calling = { role: 'assistant', toolCalls: [{ id: 'c', name: 'search', arguments: '{}' }] };
    expect(progressLine(event({ type: 'STEP_COMPLETED', snapshot: calling }))).toBe('calling search');
    expect(progressLine(event({ type: 'STEP_COMPLETED', snapshot: { role: 'tool', name: 'search' } }))).toBe(
      'search answered',
    );
    expect(progressLine(event({ type: 'STEP_DELTA', delta: {} }))).toBeUndefined();
    expect(progressLine(event({ type: 'RUN_STARTED', runId: 'run-2', agent: 'helper', depth: 1, data: {} }))).toBe(
      'helper (nested): run run-2 started',
    );
    expect(progressLine(event({ type: 'TOOL_AUTH_GRANTED', data: { tool: 'deploy' } }))).toBe('"deploy" approved');
  });
});
