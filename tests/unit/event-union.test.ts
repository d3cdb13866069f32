// AgioEvent is a union discriminated by `type`: checking the type narrows `data` (and the step fields) without casts,
// and reading a field of one type's data without that check does not compile. Checked with the TypeScript compiler
// on small sources, since jest strips types; plus what isKnownEvent tells at run time.
import path from 'node:path';
import ts from 'typescript';
import { AgioEvent as AgioEventSchema, isKnownEvent, typedEvent, type UnknownAgioEvent } from '../../common';

const root = path.resolve(__dirname, '../..');

/** The compiler's errors for `source`, compiled as a file in tests/unit (so it imports as the tests do). */
function typeErrors(source: string): { line: number; message: string }[] {
  const file = path.join(root, 'tests/unit/__event_union_check__.ts');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    esModuleInterop: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (f) => (f === file ? source : read(f));
  host.fileExists = (f) => f === file || exists(f);
  host.getSourceFile = (f, lang, onError) =>
    f === file ? ts.createSourceFile(f, source, lang) : getSourceFile(f, lang, onError);
  const program = ts.createProgram([file], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === file)
    .map((d) => ({
      line: d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line,
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    }));
}

// What a consumer writes: the first block must compile; each line marked BAD must not.
const source = `import type { AgioEvent } from '../../common/events';
declare const e: AgioEvent;
if (e.type === 'TOOL_AUTH_REQUIRED') {
  const tool: string = e.data.tool;
  const call: string = e.data.toolCallId;
  const args: unknown = e.data.args;
  void [tool, call, args];
}
switch (e.type) {
  case 'RUN_FAILED': { const type: string = e.data.error.type; void type; break; }
  case 'STEP_COMPLETED': { const role: string = e.snapshot.role; const id: string = e.stepId; void [role, id]; break; }
  case 'STEP_DELTA': { const text: string | undefined = e.delta.content; void text; break; }
  case 'MODEL_UNAVAILABLE': { const next: number = e.data.nextAttemptAt; void next; break; }
  case 'TOOL_AUTH_DENIED': { const why: 'rule' | 'denied' | 'timeout' = e.data.reason; void why; break; }
  case 'RUN_COMPLETED': { const answer: string | undefined = e.data.response; void answer; break; }
}
if (e.type === 'RUN_PAUSED') { const tool: string = e.data.tool; void tool; } // BAD: another type's field
const anyTool: string = e.data?.tool; // BAD: not narrowed
void anyTool;
`;

describe('AgioEvent', () => {
  it('narrows data and step fields by type without casts, and refuses fields the type does not have', () => {
    const lines = source.split('\n');
    const bad = lines.flatMap((line, i) => (line.includes('// BAD') ? [i] : []));
    const errors = typeErrors(source);
    expect(errors.map((e) => e.line)).toEqual(bad);
    expect(errors.every((e) => /Property 'tool' does not exist/.test(e.message))).toBe(true);
  }, 60_000);
});

describe('isKnownEvent', () => {
  const base = { runId: 'r', rootRunId: 'r', agent: 'a', depth: 0, offset: 0, timestamp: 1 };

  it("tells a newer release's event type from the ones this release knows; the schema keeps both", () => {
    const known = typedEvent(AgioEventSchema.parse({ ...base, type: 'RUN_PAUSED', data: { by: 'ops' } }));
    const newer: UnknownAgioEvent = AgioEventSchema.parse({ ...base, type: 'FUTURE_THING', data: { shiny: true } });
    expect(isKnownEvent(known)).toBe(true);
    expect(isKnownEvent(newer)).toBe(false);
    expect(newer).toMatchObject({ type: 'FUTURE_THING', data: { shiny: true } });
  });
});
