// A user's own tools from modules (`agio serve --tools FILE`, `tools:` in an agents file, AGIO_TOOLS): TypeScript or
// JavaScript files exporting tools made with defineTool, loaded before anything starts so a bad file stops serve early.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolDefinition } from '../activities/tools/define-tool';

/** A tools module that cannot be used: the message names the file and what is wrong. */
export class ToolModuleError extends Error {
  override name = 'ToolModuleError';
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`tools file ${file}: ${problem}`);
  }
}

/** Whether a module's export is a tool (what defineTool returns): a name, a description, a zod schema and code. */
function isTool(value: unknown): value is ToolDefinition {
  const v = value as Partial<ToolDefinition> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.name === 'string' &&
    typeof v.execute === 'function' &&
    typeof (v.parameters as { safeParse?: unknown } | undefined)?.safeParse === 'function'
  );
}

/** tsx's loader API: imports a TypeScript or JavaScript module (ESM with top-level await, or CommonJS). */
type TsxApi = { tsImport(specifier: string, parentURL: string): Promise<Record<string, unknown>> };
/**
 * A real `import()`: this file is compiled to CommonJS, where TypeScript would turn `import()` into `require()`, which
 * loads no ES module (nor tsx's ESM loader API).
 */
const nativeImport = new Function('specifier', 'return import(specifier)') as (
  specifier: string,
) => Promise<Record<string, unknown>>;

/** Imports a module with tsx when it is installed; without it, JavaScript only. */
async function importModule(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  const tsx = (await nativeImport('tsx/esm/api').catch(() => undefined)) as TsxApi | undefined;
  if (tsx) return tsx.tsImport(url, pathToFileURL(__filename).href);
  if (/\.[cm]?tsx?$/.test(file))
    throw new ToolModuleError(
      file,
      'a TypeScript tools file is loaded with tsx: install it (npm i -D tsx), or give a .js',
    );
  return nativeImport(url);
}

/**
 * The tools a module exports: every named export that is a tool or an array of tools, and the default export (a tool,
 * an array, or an object of them). Throws {@link ToolModuleError} when it cannot be loaded or exports none.
 */
export async function loadToolModule(file: string): Promise<ToolDefinition[]> {
  const absolute = path.resolve(file);
  let exports: Record<string, unknown>;
  try {
    exports = await importModule(absolute);
  } catch (err) {
    if (err instanceof ToolModuleError) throw err;
    throw new ToolModuleError(absolute, `cannot be loaded: ${(err as Error).message.split('\n')[0]}`);
  }
  const found = new Set<ToolDefinition>();
  const collect = (value: unknown, depth: number): void => {
    if (isTool(value)) found.add(value);
    else if (Array.isArray(value)) value.forEach((v) => collect(v, depth));
    // The default export (or a CommonJS module's exports, which the ESM loader gives as `default`) may hold them.
    else if (depth > 0 && typeof value === 'object' && value !== null)
      Object.values(value).forEach((v) => collect(v, depth - 1));
  };
  for (const [name, value] of Object.entries(exports)) collect(value, name === 'default' ? 2 : 0);
  if (!found.size)
    throw new ToolModuleError(absolute, 'exports no tools (export the tools defineTool makes, or an array of them)');
  return [...found];
}

/** The tools of several modules, in order; two tools of one name are refused, naming both files. */
export async function loadToolModules(files: string[]): Promise<ToolDefinition[]> {
  const byName = new Map<string, string>();
  const tools: ToolDefinition[] = [];
  for (const file of files) {
    for (const tool of await loadToolModule(file)) {
      const other = byName.get(tool.name);
      if (other) throw new ToolModuleError(path.resolve(file), `tool "${tool.name}" is also defined in ${other}`);
      byName.set(tool.name, path.resolve(file));
      tools.push(tool);
    }
  }
  return tools;
}
