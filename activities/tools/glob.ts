// The `glob` tool: finds workspace files whose paths match a glob pattern (`**`, `*`, `?`, `{a,b}`, `[abc]`): ripgrep
// lists the files inside the sandbox and a linear-time matcher picks them.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { defineTool } from './define-tool';
import { globMatch } from './glob-match';
import { RG_BASE, runRipgrep, searchTarget, shownPath } from './ripgrep';

const DEFAULT_MAX_RESULTS = 200;
/** The most files listed before matching. */
const MAX_LISTED = 100_000;

/** Lists files matching a glob pattern, as paths relative to the workspace, capped. */
export const globTool = defineTool({
  name: 'glob',
  description:
    'Find files by glob pattern, matched against paths relative to the search directory: "**" matches any number of ' +
    'directories, "*" and "?" match within one path segment, "{a,b}" matches alternatives (e.g. "src/**/*.{ts,tsx}"). ' +
    `Skips node_modules and .git. Returns paths relative to the workspace, at most ${DEFAULT_MAX_RESULTS} by default.`,
  parameters: z.object({
    pattern: z.string().min(1).describe('Glob pattern, relative to the search directory, e.g. "**/*.ts".'),
    path: z
      .string()
      .optional()
      .describe('Directory to search in, relative to the workspace (default: the workspace root).'),
    max_results: z
      .number()
      .int()
      .min(1)
      .max(5000)
      .optional()
      .describe(`Maximum number of paths to return (default ${DEFAULT_MAX_RESULTS}).`),
  }),
  idempotent: true,
  // Reads the workspace and returns: no round trip through the server (a local activity).
  quick: true,
  async execute({ pattern, path: userPath = '.', max_results: maxResults = DEFAULT_MAX_RESULTS }, ctx) {
    if (path.isAbsolute(pattern)) throw new Error('pattern must be relative; put the directory to search in "path".');
    const matches = globMatch(pattern);
    const target = await searchTarget(ctx, userPath);
    if (!(await fs.stat(target.real)).isDirectory()) throw new Error(`"${userPath}" is not a directory.`);
    const listed = await runRipgrep(
      ctx,
      target.root,
      [...RG_BASE, '--files', '--', ...(target.rel === '.' ? [] : [target.rel])],
      MAX_LISTED,
    );
    if (listed.exitCode === 2 && listed.lines.length === 0) throw new Error(listed.stderr || 'ripgrep failed');
    const prefix = target.rel === '.' ? '' : `${target.rel}/`;
    const found: string[] = [];
    let capped = false;
    for (const line of listed.lines) {
      const shown = shownPath(line);
      if (!matches(shown.slice(prefix.length))) continue;
      if (found.length === maxResults) {
        capped = true;
        break;
      }
      found.push(shown);
    }
    if (found.length === 0) return `No files match "${pattern}" in ${userPath}.`;
    const marker = capped ? `\n[… results capped at ${maxResults}; narrow the pattern or path to see more …]` : '';
    return { content: found.join('\n') + marker, metadata: { count: found.length, capped } };
  },
});
