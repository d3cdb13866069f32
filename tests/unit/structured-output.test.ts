// Structured output's pure parts: which output schemas an AgentSpec accepts (JSON Schema, zod in code) and refuses,
// the answer's JSON text, the check of an answer (activities/model/output-check.ts), the repair prompt and the failure.
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import {
  AgentSpec,
  ErrorType,
  answerJsonText,
  asTool,
  defineAgent,
  outputFailureMessage,
  outputRepairPrompt,
  summarizeViolations,
  type Step,
} from '../../common';
import { outputChecker, responseFormat, withSchemaInstruction } from '../../activities/model/output-check';
import { StructuredOutput } from '../../workflows/agent-loop/structured-output';

const person = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer' } },
  required: ['name', 'age'],
  additionalProperties: false,
};

describe('AgentSpec outputSchema', () => {
  it('keeps a JSON Schema object as written, with the optional name, strictness and repair limit', () => {
    const spec = AgentSpec.parse({
      name: 'extractor',
      outputSchema: person,
      outputSchemaName: 'person',
      outputSchemaStrict: true,
      maxOutputRepairs: 1,
    });
    expect(spec.outputSchema).toEqual(person);
    expect(spec).toMatchObject({ outputSchemaName: 'person', outputSchemaStrict: true, maxOutputRepairs: 1 });
  });

  it('leaves an agent without one as before (no new fields filled in)', () => {
    const spec = AgentSpec.parse({ name: 'plain' });
    for (const field of ['outputSchema', 'outputSchemaName', 'outputSchemaStrict', 'maxOutputRepairs'])
      expect(spec).not.toHaveProperty(field);
  });

  it.each([
    ['a string', 'object'],
    ['an array', [{ type: 'string' }]],
    ['a number', 42],
    ['null', null],
  ])('refuses %s with a message saying what fits', (_what, value) => {
    const parsed = AgentSpec.safeParse({ name: 'bad', outputSchema: value });
    expect(parsed.success).toBe(false);
    const issue = parsed.error!.issues[0];
    expect(issue.path).toEqual(['outputSchema']);
    expect(issue.message).toMatch(/outputSchema must be a JSON Schema object/);
  });

  it('refuses a schema name the provider would refuse', () => {
    expect(AgentSpec.safeParse({ name: 'a', outputSchema: person, outputSchemaName: 'has spaces' }).success).toBe(
      false,
    );
  });

  it('converts a zod schema given to defineAgent into plain JSON Schema (its output side, without $schema)', () => {
    const agent = defineAgent({
      name: 'typed',
      outputSchema: z.object({ name: z.string(), tags: z.array(z.string()).optional() }),
    });
    expect(agent.outputSchema).toEqual({
      type: 'object',
      properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['name'],
      additionalProperties: false,
    });
    // Plain JSON: it survives a trip through a workflow's history unchanged.
    expect(JSON.parse(JSON.stringify(agent))).toEqual(agent);
  });

  it('converts a zod schema of an agent offered as a tool too', () => {
    const tool = asTool({ name: 'inner', outputSchema: z.object({ ok: z.boolean() }) }, { description: 'checks' });
    expect(tool.agent.outputSchema).toMatchObject({ type: 'object', properties: { ok: { type: 'boolean' } } });
  });

  it('refuses a zod schema that has no JSON Schema form, naming the field', () => {
    const parsed = AgentSpec.safeParse({ name: 'dated', outputSchema: z.object({ at: z.date() }) });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0].message).toMatch(
      /outputSchema: the zod schema has no JSON Schema form \(Date cannot be represented/,
    );
  });
});

describe('answerJsonText', () => {
  it('trims, and takes the JSON out of one surrounding code fence', () => {
    expect(answerJsonText('  {"a":1}\n')).toBe('{"a":1}');
    expect(answerJsonText('```json\n{"a": 1}\n```')).toBe('{"a": 1}');
    expect(answerJsonText('```\n[1, 2]\n```')).toBe('[1, 2]');
  });

  it('leaves prose around a fence alone (that is not an answer of only JSON)', () => {
    expect(answerJsonText('Here it is:\n```json\n{}\n```')).toBe('Here it is:\n```json\n{}\n```');
  });
});

describe('outputChecker', () => {
  const format = { name: 'person', schema: person };

  it('accepts an answer that matches, fenced or not', () => {
    const check = outputChecker(format);
    expect(check('{"name":"Ada","age":36}')).toEqual({ violations: [] });
    expect(check('```json\n{"name":"Ada","age":36}\n```')).toEqual({ violations: [] });
  });

  it('says why an answer is not JSON', () => {
    const { violations } = outputChecker(format)('Sure! {"name": "Ada"');
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatch(/^the answer is not valid JSON \(/);
    expect(outputChecker(format)('  ').violations).toEqual(['the answer is empty; a JSON value was expected']);
  });

  it('lists every schema violation with where it is', () => {
    const { violations } = outputChecker(format)('{"name": 7, "nickname": "x"}');
    expect(violations).toEqual(
      expect.arrayContaining([
        "(root) must have required property 'age'",
        '/name must be string',
        '(root) must NOT have additional properties ("nickname")',
      ]),
    );
  });

  it('reads a draft-07 schema with draft-07 semantics', () => {
    const tuple = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'array',
      items: [{ type: 'string' }, { type: 'number' }],
      additionalItems: false,
    };
    const check = outputChecker({ name: 'pair', schema: tuple });
    expect(check('["a", 1]').violations).toEqual([]);
    expect(check('["a", "b"]').violations).toEqual(['/1 must be number']);
  });

  it('fails, not retried, on a schema that can never be checked', () => {
    let err: unknown;
    try {
      outputChecker({ name: 'broken', schema: { type: 'nonsense' } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: ErrorType.InvalidAgentSpec, nonRetryable: true });
    expect((err as Error).message).toMatch(/output schema "broken" is not a valid JSON Schema/);
  });

  it('builds the response_format, and states the schema in the system prompt for providers without it', () => {
    expect(responseFormat({ name: 'person', schema: person, strict: true })).toEqual({
      type: 'json_schema',
      json_schema: { name: 'person', schema: person, strict: true },
    });
    expect(responseFormat({ name: 'person', schema: person })).toEqual({
      type: 'json_schema',
      json_schema: { name: 'person', schema: person },
    });
    const [system, user] = withSchemaInstruction(
      [
        { role: 'system', content: 'You extract.' },
        { role: 'user', content: 'Ada, 36' },
      ],
      format,
    );
    expect(system.content).toMatch(
      /^You extract\.\n\nWhen you give your final answer, answer with only a JSON value .* named "person":\n\{"type":"object"/s,
    );
    expect(user).toEqual({ role: 'user', content: 'Ada, 36' });
    expect(withSchemaInstruction([{ role: 'user', content: 'hi' }], format)[0].role).toBe('system');
  });
});

describe('repair prompt and failure', () => {
  it('names the schema and each violation, and asks for the JSON only', () => {
    const prompt = outputRepairPrompt({ name: 'person' }, ["(root) must have required property 'age'"]);
    expect(prompt).toBe(
      'Your answer does not match the required output schema "person":\n- (root) must have required property \'age\'\n\nAnswer again with only the corrected JSON value: no other text and no code fences.',
    );
  });

  it('keeps a long list short', () => {
    const summary = summarizeViolations(Array.from({ length: 12 }, (_, i) => `/items/${i} must be string`));
    expect(summary.split('\n')).toHaveLength(9);
    expect(summary).toMatch(/- …and 4 more$/);
    expect(summarizeViolations(['x'.repeat(1000)]).length).toBeLessThan(320);
  });

  it('says how many repairs were tried in the failure', () => {
    expect(outputFailureMessage('extractor', { name: 'person' }, 2, ['/age must be integer'])).toBe(
      'agent "extractor" gave no output matching its output schema "person" (its answer and 2 repairs); the last answer\'s violations:\n- /age must be integer',
    );
  });
});

describe('StructuredOutput (the loop side)', () => {
  const answer = (content: string): Step => ({ id: 'r:2', runId: 'r', index: 2, role: 'assistant', content });
  const agent = defineAgent({ name: 'extractor', outputSchema: person, maxOutputRepairs: 1 });

  it('is absent for an agent without an output schema', () => {
    expect(StructuredOutput.of(defineAgent({ name: 'plain' }))).toBeUndefined();
  });

  it('names the format after the agent unless the spec names it', () => {
    expect(StructuredOutput.of(agent)!.format).toEqual({ name: 'extractor', schema: person });
    expect(StructuredOutput.of({ ...agent, outputSchemaName: 'person', outputSchemaStrict: false })!.format).toEqual({
      name: 'person',
      schema: person,
      strict: false,
    });
  });

  it('accepts a checked answer as its JSON text and parsed value', () => {
    const verdict = StructuredOutput.of(agent)!.verdict(answer('```json\n{"name":"Ada","age":36}\n```'), {
      violations: [],
    });
    expect(verdict).toEqual({
      kind: 'accepted',
      response: '{"name":"Ada","age":36}',
      output: { name: 'Ada', age: 36 },
    });
  });

  it('rejects an answer its call did not check', () => {
    expect(StructuredOutput.of(agent)!.verdict(answer('{}'), undefined)).toMatchObject({
      kind: 'rejected',
      violations: [expect.stringMatching(/not checked/)],
    });
  });

  it('gives the repairs the spec allows, then fails with OutputValidationError naming the violations', () => {
    const structured = StructuredOutput.of(agent)!;
    const repair = structured.repairStep('r', 3, ['/age must be integer']);
    expect(repair).toMatchObject({
      id: 'r:3',
      index: 3,
      role: 'user',
      metadata: { synthetic: 'output_repair', violations: ['/age must be integer'] },
    });
    expect(repair.content).toContain('/age must be integer');
    expect(structured.carried()).toEqual({ used: 1, allowed: 1 });
    expect(() => structured.repairStep('r', 5, ['/name must be string'])).toThrow(
      expect.objectContaining({
        type: ErrorType.OutputValidationError,
        nonRetryable: true,
        message: expect.stringContaining('/name must be string'),
      }),
    );
  });

  it('keeps the repairs carried across continue-as-new, not the spec default', () => {
    const structured = StructuredOutput.of(defineAgent({ name: 'x', outputSchema: person }), { used: 3, allowed: 3 })!;
    expect(() => structured.repairStep('r', 9, ['bad'])).toThrow(/its answer and 3 repairs/);
  });
});
