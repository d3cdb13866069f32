// The offline demo model's answers for agents with an output schema: they fit the schema, so `agio serve` without a
// key shows structured output working instead of failing after its repairs.
import Ajv from 'ajv';
import { demoReply, exampleOf } from '../../devkit/demo-model';

const request = (body: unknown) => ({ body, headers: {}, receivedAt: 0, path: '/v1/chat/completions' });
const invoice = {
  type: 'object',
  properties: {
    total: { type: 'number' },
    currency: { type: 'string', enum: ['EUR', 'USD'] },
    lines: { type: 'array', items: { type: 'object', properties: { qty: { type: 'integer' } }, required: ['qty'] } },
    paid: { type: 'boolean' },
  },
  required: ['total', 'currency', 'lines', 'paid'],
  additionalProperties: false,
};

describe('the offline demo model and output schemas', () => {
  it('answers with JSON that fits the schema asked for', () => {
    const turn = demoReply(
      request({
        messages: [{ role: 'user', content: 'invoice' }],
        response_format: { type: 'json_schema', json_schema: { name: 'invoice', schema: invoice } },
      }),
    );
    const value = JSON.parse(turn.content!);
    expect(new Ajv().validate(invoice, value)).toBe(true);
    expect(value).toEqual({ total: 1, currency: 'EUR', lines: [{ qty: 1 }], paid: true });
  });

  it('still calls a tool first when it has one, and answers with the schema after it', () => {
    const format = {
      type: 'json_schema',
      json_schema: { name: 'x', schema: { type: 'object', properties: { files: { type: 'string' } } } },
    };
    const tools = [{ type: 'function', function: { name: 'ls', parameters: { type: 'object' } } }];
    expect(
      demoReply(request({ messages: [{ role: 'user', content: 'list' }], tools, response_format: format }))
        .toolCalls?.[0].name,
    ).toBe('ls');
    const after = demoReply(
      request({
        messages: [
          { role: 'user', content: 'list' },
          { role: 'tool', content: 'a.txt' },
        ],
        tools,
        response_format: format,
      }),
    );
    expect(JSON.parse(after.content!)).toEqual({ files: '(offline demo model)' });
  });

  it('fills consts, alternatives and nulls', () => {
    expect(exampleOf({ anyOf: [{ type: 'null' }, { type: 'string' }] })).toBeNull();
    expect(exampleOf({ const: 7 })).toBe(7);
    expect(exampleOf({ type: ['integer', 'null'] })).toBe(1);
  });
});
