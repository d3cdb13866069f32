// Structured output on a real dev server against the scripted model: an agent's output schema goes out as
// response_format (or, for a provider without it, in the system prompt), the final answer is checked, an answer off
// the schema gets a repair turn, and a run that never fits fails with OutputValidationError; the parsed `output`
// reaches RunOutput, GET /runs/:id, a parent (as its agent tool's JSON text) and a workflow agent's state.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { ErrorType, asTool, defineAgent, sequentialAgent, type RunOutputOf, type TypedAgentSpec } from '../../common';
import { text, toolCall, toolCalls, type RecordedRequest } from '../../devkit/scripted-model-server';
import { testTools } from '../fixtures/test-tools';
import { offeredTools, sentMessages, sentToolResult } from '../helpers/agent-runs';
import { request } from '../helpers/bridge';
import { eventsOf, readStream, requestsOf } from '../helpers/nested-runs';
import { useTestBed } from '../helpers/test-bed';
import { agentKey, requestsOfAgent, subAgent, systemPrompt } from '../helpers/workflow-agents';

const person = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer' } },
  required: ['name', 'age'],
  additionalProperties: false,
};
const lastMessage = (req: RecordedRequest) => sentMessages(req).at(-1)!;

describe('structured output, provider with response_format', () => {
  const bed = useTestBed({ tools: testTools, bridge: true });

  it('sends the schema as response_format and returns the parsed answer as `output` (GET /runs/:id shows it)', async () => {
    bed.server.script(text('{"name": "Ada", "age": 36}'));
    const agent = defineAgent({
      name: 'extractor',
      instructions: 'Extract the person.',
      outputSchema: person,
      outputSchemaName: 'person',
      outputSchemaStrict: true,
    });

    const run = await bed.agio.start(agent, 'Ada Lovelace, 36');
    const output = await run.result();

    expect(output.output).toEqual({ name: 'Ada', age: 36 });
    expect(output.response).toBe('{"name": "Ada", "age": 36}');
    expect(output.terminationReason).toBe('completed');
    expect(bed.server.requests).toHaveLength(1);
    expect(bed.server.requests[0].body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'person', schema: person, strict: true },
    });
    // The provider holds the model to the schema: the prompt is left as written.
    expect(systemPrompt(bed.server.requests[0])).toBe('Extract the person.');
    const status = await request(`${bed.bridge.url}/runs/${run.runId}`, { token: 'test-token' });
    expect(status.body).toMatchObject({
      status: 'completed',
      output: { output: { name: 'Ada', age: 36 }, response: '{"name": "Ada", "age": 36}' },
    });
  });

  it('sends no response_format for an agent without an output schema, and returns no `output`', async () => {
    bed.server.script(text('{"name": "Ada", "age": 36}'));
    const output = await (await bed.agio.start(defineAgent({ name: 'free' }), 'hi')).result();
    expect(bed.server.requests[0].body).not.toHaveProperty('response_format');
    expect(output).not.toHaveProperty('output');
  });

  it('fails a run whose answers never fit with OutputValidationError naming the last violation, after its repairs', async () => {
    bed.server.script(text('{"name": "Ada"}'), text('{"name": "Ada", "age": "36"}'));
    const agent = defineAgent({ name: 'stubborn', outputSchema: person, maxOutputRepairs: 1 });

    const run = await bed.agio.start(agent, 'Ada, 36');
    const failure: unknown = await run.result().catch((err: unknown) => err);

    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause).toMatchObject({ type: ErrorType.OutputValidationError, nonRetryable: true });
    expect(cause!.message).toMatch(
      /^agent "stubborn" gave no output matching its output schema "stubborn" \(its answer and 1 repair\)/,
    );
    expect(cause!.message).toContain('/age must be integer');
    // One repair turn, which told the model what was wrong with the first answer, each with response_format.
    expect(bed.server.requests).toHaveLength(2);
    expect(lastMessage(bed.server.requests[1])).toEqual({
      role: 'user',
      content: expect.stringContaining("(root) must have required property 'age'"),
    });
    expect(bed.server.requests.every((r) => r.body.response_format?.json_schema?.name === 'stubborn')).toBe(true);
    const events = await readStream(bed.client, run.runId);
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_FAILED',
      depth: 0,
      data: { error: { type: ErrorType.OutputValidationError } },
    });
    const status = await request(`${bed.bridge.url}/runs/${run.runId}`, { token: 'test-token' });
    expect(status.body).toMatchObject({
      status: 'failed',
      error: { type: ErrorType.OutputValidationError, message: expect.stringContaining('/age must be integer') },
    });
  });

  it('takes a zod schema in defineAgent: sent as JSON Schema, and the output typed by it', async () => {
    const Forecast = z.object({ city: z.string(), highs: z.array(z.number()), sunny: z.boolean() });
    const agent: TypedAgentSpec<z.infer<typeof Forecast>> = defineAgent({ name: 'forecaster', outputSchema: Forecast });
    bed.server.script(text('```json\n{"city": "Oslo", "highs": [3, 5], "sunny": false}\n```'));

    const output = (await (await bed.agio.start(agent, 'Oslo this week')).result()) as RunOutputOf<
      z.infer<typeof Forecast>
    >;

    expect(bed.server.requests[0].body.response_format.json_schema).toEqual({
      name: 'forecaster',
      schema: agent.outputSchema,
    });
    expect(agent.outputSchema).toMatchObject({
      type: 'object',
      required: ['city', 'highs', 'sunny'],
      additionalProperties: false,
    });
    expect(output.output?.highs).toEqual([3, 5]);
    expect(Forecast.parse(output.output)).toEqual({ city: 'Oslo', highs: [3, 5], sunny: false });
    // The code fence is not part of the answer's JSON text.
    expect(output.response).toBe('{"city": "Oslo", "highs": [3, 5], "sunny": false}');
  });

  it('still runs tool calls in a run with a schema: tools and response_format go together, the answer comes last', async () => {
    bed.server.script(
      toolCalls([toolCall('echo', { text: 'Ada' }, { id: 'call_echo' })]),
      text('{"name": "Ada", "age": 36}'),
    );
    const agent = defineAgent({ name: 'looker', tools: ['echo'], outputSchema: person });

    const output = await (await bed.agio.start(agent, 'who?')).result();

    expect(output.output).toEqual({ name: 'Ada', age: 36 });
    expect(output.metrics).toMatchObject({ modelCalls: 2, toolCalls: 1 });
    for (const req of bed.server.requests) {
      expect(offeredTools(req)).toEqual(['echo']);
      expect(req.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'looker' } });
    }
    expect(sentToolResult(bed.server.requests[1], 'call_echo')).toBe('Ada');
  });

  it('repairs the summary of a run that hit maxSteps without offering tools again', async () => {
    bed.server.script(
      toolCalls([toolCall('echo', { text: 'x' }, { id: 'call_1' })]),
      text('I found Ada, aged 36.'),
      text('{"name": "Ada", "age": 36}'),
    );
    const agent = defineAgent({ name: 'brief', tools: ['echo'], maxSteps: 1, outputSchema: person });

    const output = await (await bed.agio.start(agent, 'who?')).result();

    expect(output).toMatchObject({ terminationReason: 'max_steps', output: { name: 'Ada', age: 36 } });
    expect(bed.server.requests).toHaveLength(3);
    expect(offeredTools(bed.server.requests[2])).toEqual([]);
    expect(lastMessage(bed.server.requests[2]).content).toMatch(
      /^Your answer does not match the required output schema "brief":\n- the answer is not valid JSON/,
    );
  });

  it("returns an agent tool's output to its parent as JSON text, after repairing the child's answer in the child", async () => {
    const extractor = defineAgent({ name: 'extractor', instructions: 'You are the extractor.', outputSchema: person });
    const lead = defineAgent({
      name: 'lead',
      instructions: 'You are the lead.',
      tools: [asTool(extractor, { description: 'Extracts a person.' })],
    });
    bed.server.scriptFor(
      'You are the lead.',
      toolCalls([toolCall('extractor', { task: 'Ada, 36' }, { id: 'call_x' })]),
      text('Ada is 36.'),
    );
    bed.server.scriptFor(
      'You are the extractor.',
      text('{"name": "Ada", "age": 36.5}'),
      text('{"name": "Ada", "age": 36}'),
    );

    const run = await bed.agio.start(lead, 'Tell me about Ada');
    const output = await run.result();

    expect(output.response).toBe('Ada is 36.');
    expect(output).not.toHaveProperty('output');
    const lead2 = requestsOf(bed.server, 'You are the lead.');
    expect(sentToolResult(lead2[1], 'call_x')).toBe('{"name": "Ada", "age": 36}');
    expect(lead2.every((r) => !('response_format' in r.body))).toBe(true);
    const child = requestsOf(bed.server, 'You are the extractor.');
    expect(child).toHaveLength(2);
    expect(child.every((r) => r.body.response_format?.json_schema?.name === 'extractor')).toBe(true);
    expect(lastMessage(child[1]).content).toContain('/age must be integer');
    const events = await readStream(bed.client, run.runId);
    expect(eventsOf(events, `${run.runId}/tool/3-call_x`).at(-1)).toMatchObject({
      type: 'RUN_COMPLETED',
      data: { response: '{"name": "Ada", "age": 36}' },
    });
  });

  it("stores a sub-agent's parsed output under its outputKey, for later sub-agents to read", async () => {
    bed.server.scriptFor(agentKey('extract'), text('{"name": "Ada", "age": 36}'));
    bed.server.scriptFor(agentKey('greet'), text('Hello Ada!'));
    const pipeline = sequentialAgent({
      name: 'pipeline',
      subAgents: [
        subAgent('extract', { outputSchema: person, outputKey: 'person' }),
        subAgent('greet', { instructions: 'Greet <<{person}>>', outputKey: 'greeting' }),
      ],
    });

    const output = await (await bed.agio.start(pipeline, 'Ada, 36')).result();

    expect(output.state).toEqual({ person: { name: 'Ada', age: 36 }, greeting: 'Hello Ada!' });
    expect(systemPrompt(requestsOfAgent(bed.server, 'greet')[0])).toContain('Greet <<{"name":"Ada","age":36}>>');
  });
});

describe('structured output, provider without response_format', () => {
  const bed = useTestBed({ tools: testTools, model: { responseFormat: false } });

  it('states the schema in the system prompt instead, and repairs an invalid first answer in a second turn', async () => {
    bed.server.script(text('Sure! Ada is 36.'), text('{"name": "Ada", "age": 36}'));
    const agent = defineAgent({ name: 'extractor', instructions: 'Extract the person.', outputSchema: person });

    const output = await (await bed.agio.start(agent, 'Ada Lovelace, 36')).result();

    expect(output.output).toEqual({ name: 'Ada', age: 36 });
    expect(output.metrics).toMatchObject({ modelCalls: 2 });
    expect(bed.server.requests).toHaveLength(2);
    for (const req of bed.server.requests) {
      expect(req.body).not.toHaveProperty('response_format');
      expect(systemPrompt(req)).toMatch(
        /^Extract the person\.\n\nWhen you give your final answer, answer with only a JSON value .*named "extractor":\n\{"type":"object"/s,
      );
    }
    const repair = lastMessage(bed.server.requests[1]);
    expect(repair).toEqual({
      role: 'user',
      content: expect.stringMatching(
        /^Your answer does not match the required output schema "extractor":\n- the answer is not valid JSON/,
      ),
    });
    // The repair turn is a step of the run, marked as such; the schema instruction is not (it is the provider's
    // business).
    expect(output.steps.map((s) => [s.role, s.metadata?.synthetic])).toEqual([
      ['system', undefined],
      ['user', undefined],
      ['assistant', undefined],
      ['user', 'output_repair'],
      ['assistant', undefined],
    ]);
    expect(output.steps[0].content).toBe('Extract the person.');
  });
});
