// The `grep` tool: searches workspace files for a JavaScript regular expression, line by line.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { defineTool, type ToolContext } from './define-tool';
import { globMatcher, walkFiles, type WalkedFile } from './walk';
import { realWorkspace, relativeToWorkspace, resolveInWorkspace } from './workspace';

const DEFAULT_MAX_RESULTS = 100;
const MAX_FILE_BYTES = 10 * 1024 * 1024;
const MAX_LINE_CHARS = 500;

/** The files under `target` (or `target` itself), each with the path shown in results. */
async function* filesToSearch(
  target: string,
  root: string,
  ctx: ToolContext,
): AsyncGenerator<WalkedFile & { shown: string }> {
  if (!(await fs.stat(target)).isDirectory()) {
    yield { abs: target, rel: path.basename(target), shown: relativeToWorkspace(root, target) };
    return;
  }
  for await (const file of walkFiles(target, { root, signal: ctx.signal, onProgress: () => ctx.heartbeat() })) {
    yield { ...file, shown: relativeToWorkspace(root, path.join(target, file.rel)) };
  }
}

/** Searches files for a regex and returns `file:line:text` matches, capped, paths relative to the workspace. */
export const grepTool = defineTool({
  name: 'grep',
  description:
    'Search file contents with a JavaScript regular expression. Returns matching lines as "file:line:text" (paths relative ' +
    'to the workspace). Optionally restrict files with a glob (e.g. "*.ts" matches by file name, "src/**/*.ts" by path under the searched directory). ' +
    `Skips node_modules, .git and binary files. At most ${DEFAULT_MAX_RESULTS} matches by default.`,
  parameters: z.object({
    pattern: z.string().min(1).describe('JavaScript regular expression (without slashes), e.g. "log(Error|Warn)".'),
    path: z
      .string()
      .optional()
      .describe('File or directory to search, relative to the workspace (default: the workspace root).'),
    glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.{js,ts}".'),
    ignore_case: z.boolean().optional().describe('Case-insensitive matching (default false).'),
    max_results: z
      .number()
      .int()
      .min(1)
      .max(5000)
      .optional()
      .describe(`Maximum number of matching lines to return (default ${DEFAULT_MAX_RESULTS}).`),
  }),
  idempotent: true,
  // Reads the workspace and returns: no round trip through the server (a local activity).
  quick: true,
  async execute(
    {
      pattern,
      path: userPath = '.',
      glob,
      ignore_case: ignoreCase = false,
      max_results: maxResults = DEFAULT_MAX_RESULTS,
    },
    ctx,
  ) {
    let re: RegExp;
    try {
      re = new RegExp(pattern, ignoreCase ? 'i' : '');
    } catch (err) {
      throw new Error(`Invalid regular expression "${pattern}": ${(err as Error).message}`);
    }
    const matchesFilter = glob ? globMatcher(glob) : () => true;
    const root = await realWorkspace(ctx.workspace);
    const target = await resolveInWorkspace(ctx.workspace, userPath, { mustExist: true });
    const results: string[] = [];
    let capped = false;
    search: for await (const file of filesToSearch(target, root, ctx)) {
      if (!matchesFilter(file.rel)) continue;
      const stat = await fs.stat(file.abs).catch(() => undefined);
      if (!stat || stat.size > MAX_FILE_BYTES) continue;
      const buf = await fs.readFile(file.abs).catch(() => undefined);
      if (!buf || buf.subarray(0, 8192).includes(0)) continue; // unreadable or binary
      const text = buf.toString('utf8');
      const lines = text.split(/\r?\n/);
      if (text.endsWith('\n')) lines.pop();
      for (let i = 0; i < lines.length; i++) {
        if (!re.test(lines[i])) continue;
        if (results.length === maxResults) {
          capped = true;
          break search;
        }
        const line = lines[i].length > MAX_LINE_CHARS ? `${lines[i].slice(0, MAX_LINE_CHARS)} […]` : lines[i];
        results.push(`${file.shown}:${i + 1}:${line}`);
      }
    }
    if (results.length === 0) return `No matches for /${pattern}/ in ${userPath}.`;
    const marker = capped
      ? `\n[… results capped at ${maxResults} matches; narrow the pattern, path or glob to see more …]`
      : '';
    return { content: results.join('\n') + marker, metadata: { count: results.length, capped } };
  },
});
