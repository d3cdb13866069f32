// Structured output in the model call: the response_format a provider that supports it gets, the schema instruction
// one that does not gets instead, and the check of a final answer against the schema (ajv, compiled once per schema).
//
// Why the check runs here and not in workflow code: ajv compiles a schema into JavaScript with `new Function`, which
// the workflow sandbox allows, but the verdict would then be recomputed on every replay by whatever ajv the worker
// has, and an ajv upgrade that words a violation differently would change the repair prompt of a run in flight. Run
// in the activity, the verdict is part of the call's recorded result: replay reads it back, the workflow bundle stays
// free of ajv, and the schema is compiled once per worker rather than in every workflow context. The workflow only
// decides what to do with the verdict (accept, repair, fail) and parses the accepted JSON text itself.
import { ApplicationFailure } from '@temporalio/common';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { ChatCompletionCreateParams, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { ErrorType, answerJsonText, type OutputCheck, type OutputFormat } from '../../common';
import { compileJsonSchema } from '../json-schema';

/** Compiled validators by schema text; bounded, as a worker serves agents it does not know in advance. */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 200;

/** The `response_format` of a call that asks for structured output. */
export function responseFormat(format: OutputFormat): ChatCompletionCreateParams['response_format'] {
  return {
    type: 'json_schema',
    json_schema: {
      name: format.name,
      schema: format.schema,
      ...(format.strict !== undefined ? { strict: format.strict } : {}),
    },
  };
}

/**
 * The conversation for a provider without response_format: the schema is stated in the system prompt (appended to the
 * first system message, or as one of its own), so the model knows what to answer with from its first turn.
 */
export function withSchemaInstruction(
  messages: ChatCompletionMessageParam[],
  format: OutputFormat,
): ChatCompletionMessageParam[] {
  const instruction = `When you give your final answer, answer with only a JSON value (no other text, no code fences) that matches this JSON Schema, named "${format.name}":\n${JSON.stringify(format.schema)}`;
  const first = messages[0];
  if (first?.role === 'system' && typeof first.content === 'string')
    return [{ role: 'system', content: `${first.content}\n\n${instruction}` }, ...messages.slice(1)];
  return [{ role: 'system', content: instruction }, ...messages];
}

/**
 * The check of final answers against a schema: JSON (see answerJsonText) matching it; an empty list of violations
 * means the answer fits. Made before the model call, so a schema ajv cannot compile fails the run before it costs one.
 */
export function outputChecker(format: OutputFormat): (content: string) => OutputCheck {
  const validate = validatorFor(format);
  return (content) => {
    const text = answerJsonText(content);
    if (!text) return { violations: ['the answer is empty; a JSON value was expected'] };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return { violations: [`the answer is not valid JSON (${(err as Error).message})`] };
    }
    return { violations: validate(value) ? [] : (validate.errors ?? []).map(violation) };
  };
}

/** One ajv error as a short line: where, what, and the detail ajv keeps in its params. */
function violation(error: ErrorObject): string {
  const where = error.instancePath || '(root)';
  const params = error.params as Record<string, unknown>;
  const detail =
    error.keyword === 'additionalProperties'
      ? ` ("${String(params.additionalProperty)}")`
      : error.keyword === 'enum'
        ? ` (${JSON.stringify(params.allowedValues)})`
        : error.keyword === 'const'
          ? ` (${JSON.stringify(params.allowedValue)})`
          : '';
  return `${where} ${error.message ?? error.keyword}${detail}`;
}

/** The schema's validator, compiled on first use; a schema ajv cannot compile fails the run (it can never pass). */
function validatorFor(format: OutputFormat): ValidateFunction {
  const key = JSON.stringify(format.schema);
  let validate = compiled.get(key);
  if (validate) return validate;
  try {
    validate = compileJsonSchema(format.schema);
  } catch (err) {
    throw ApplicationFailure.create({
      type: ErrorType.InvalidAgentSpec,
      nonRetryable: true,
      message: `output schema "${format.name}" is not a valid JSON Schema: ${(err as Error).message}`,
    });
  }
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, validate);
  return validate;
}
