// Structured output: the output schema an LLM agent may declare (plain JSON Schema in its spec, so history records
// it), and the pure parts of holding a final answer to it: the answer's JSON text, the repair prompt, the failure.
import { z } from 'zod';

/** A JSON Schema, as a plain JSON object. */
export type JsonSchema = Record<string, unknown>;

/** Repair turns a run gets when its agent names no `maxOutputRepairs`. */
export const DEFAULT_MAX_OUTPUT_REPAIRS = 2;
/** Violations a repair prompt or a failure names at most (the rest are counted). */
const MAX_VIOLATIONS_SHOWN = 8;
/** Characters of one violation shown at most. */
const MAX_VIOLATION_CHARS = 300;

const isZodSchema = (v: unknown): v is z.ZodType => typeof v === 'object' && v !== null && '_zod' in v;
const isPlainObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An agent's `outputSchema`: a JSON Schema object (agents files, specs read back from history), or a zod schema
 * (code), which is converted here with `z.toJSONSchema` (its output side: what the caller's `z.infer` type
 * describes), so every parsed spec holds plain JSON Schema. Anything else is refused with a message saying what fits.
 */
export const OutputSchema = z
  .custom<z.ZodType | JsonSchema>((v) => isZodSchema(v) || isPlainObject(v), {
    error:
      'outputSchema must be a JSON Schema object (such as { type: "object", properties: { … } }) or, in code, a zod schema',
  })
  .transform((v, ctx): JsonSchema => {
    if (!isZodSchema(v)) return v;
    try {
      // `$schema` names the draft zod wrote (2020-12); providers do not need it, and the checker assumes 2020-12.
      const { $schema: _draft, ...schema } = z.toJSONSchema(v) as JsonSchema;
      return schema;
    } catch (err) {
      ctx.issues.push({
        code: 'custom',
        input: v,
        message: `outputSchema: the zod schema has no JSON Schema form (${(err as Error).message})`,
      });
      return z.NEVER;
    }
  });

/**
 * What a model call carries to ask for structured output: the schema, its name (response_format needs one), strictness.
 */
export interface OutputFormat {
  name: string;
  schema: JsonSchema;
  /** Passed as `json_schema.strict` (OpenAI: only a subset of JSON Schema is allowed then). */
  strict?: boolean;
}

/** The result of checking one final answer against the schema (computed by the model call, recorded in history). */
export interface OutputCheck {
  /** Empty when the answer fits. */
  violations: string[];
}

/**
 * The JSON text of an answer: trimmed, and taken out of one surrounding Markdown code fence (```json … ```), which
 * models without response_format support often add. Everything else is left as written.
 */
export function answerJsonText(content: string): string {
  const text = content.trim();
  const fenced = /^```[A-Za-z0-9_-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/.exec(text);
  return fenced ? fenced[1].trim() : text;
}

/** The violations in one line each, at most {@link MAX_VIOLATIONS_SHOWN} of them, long ones cut. */
export function summarizeViolations(violations: string[]): string {
  const shown = violations
    .slice(0, MAX_VIOLATIONS_SHOWN)
    .map((v) => (v.length > MAX_VIOLATION_CHARS ? `${v.slice(0, MAX_VIOLATION_CHARS)}…` : v));
  const more = violations.length - shown.length;
  return shown.map((v) => `- ${v}`).join('\n') + (more > 0 ? `\n- …and ${more} more` : '');
}

/** The user message of a repair turn: what was wrong with the answer, and that only the JSON is wanted. */
export function outputRepairPrompt(format: Pick<OutputFormat, 'name'>, violations: string[]): string {
  return (
    `Your answer does not match the required output schema "${format.name}":\n${summarizeViolations(violations)}\n\n` +
    'Answer again with only the corrected JSON value: no other text and no code fences.'
  );
}

/** The message of the run's failure when no repair is left. */
export function outputFailureMessage(
  agent: string,
  format: Pick<OutputFormat, 'name'>,
  repairs: number,
  violations: string[],
): string {
  const tries = repairs === 0 ? 'its answer' : `its answer and ${repairs} repair${repairs === 1 ? '' : 's'}`;
  return `agent "${agent}" gave no output matching its output schema "${format.name}" (${tries}); the last answer's violations:\n${summarizeViolations(violations)}`;
}
