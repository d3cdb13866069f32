// Arguments of an MCP tool are checked against the JSON Schema its server gave, with ajv, before the call: a zod
// schema wraps the check, so runTool reports bad arguments to the model exactly as it does for zod tools.
import type { ErrorObject } from 'ajv';
import { z } from 'zod';
import { compileJsonSchema } from '../../json-schema';

/** A zod schema that accepts what the JSON Schema accepts, unchanged, and names each problem's path. */
export function jsonSchemaArguments(schema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  const validate = compileJsonSchema(schema);
  return z.custom<Record<string, unknown>>().superRefine((value, ctx) => {
    if (validate(value)) return;
    for (const error of validate.errors ?? []) ctx.addIssue({ code: 'custom', ...issueOf(error) });
  });
}

/** An ajv error as a message and a path into the arguments (a missing or unknown property is named in the path). */
export function issueOf(error: ErrorObject): { message: string; path: (string | number)[] } {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  if (error.keyword === 'required' && params.missingProperty) {
    return { message: 'required property is missing', path: [...path, params.missingProperty] };
  }
  if (error.keyword === 'additionalProperties' && params.additionalProperty) {
    return { message: 'unknown property', path: [...path, params.additionalProperty] };
  }
  return { message: error.message ?? `fails "${error.keyword}"`, path };
}
