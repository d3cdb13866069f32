// JSON Schema checks with ajv, one way for the whole worker: an MCP tool's arguments against its input schema, and an
// agent's final answer against its output schema. Draft-04 to -07 schemas (common in hand-written files and older
// servers) keep their own semantics through ajv's draft-07 validator; anything else is read as 2020-12. Formats are
// annotations, and a dialect's unknown keywords are tolerated rather than fatal.
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020';

const options = { allErrors: true, strict: false, validateFormats: false, logger: false } as const;
let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

/** Compiles a schema (its `$schema` picks the draft and is then left out); throws when ajv cannot compile it. */
export function compileJsonSchema(schema: Record<string, unknown>): ValidateFunction {
  const { $schema, ...rest } = schema;
  const older = typeof $schema === 'string' && /draft-0[4-7]/.test($schema);
  const ajv = older ? (draft07 ??= new Ajv(options)) : (draft2020 ??= new Ajv2020(options));
  return ajv.compile(rest);
}
