// The `grep` tool: searches workspace files with ripgrep (Rust regex syntax, linear time) inside the sandbox.
import { z } from 'zod';
import { defineTool } from './define-tool';
import { RG_BASE, runRipgrep, searchTarget, shownPath } from './ripgrep';

const DEFAULT_MAX_RESULTS = 100;
const MAX_FILE_BYTES = '10M';
const MAX_LINE_CHARS = 500;

/** Searches files for a regex and returns `file:line:text` matches, capped, paths relative to the workspace. */
export const grepTool = defineTool({
  name: 'grep',
  description:
    "Search file contents with a regular expression (ripgrep's Rust syntax: like JavaScript's without look-around or " +
    'back-references). Returns matching lines as "file:line:text" (paths relative to the workspace). Optionally ' +
    'restrict files with a glob (e.g. "*.ts" matches by file name, "src/**/*.ts" by path under the searched directory). ' +
    `Skips node_modules, .git and binary files. At most ${DEFAULT_MAX_RESULTS} matches by default.`,
  parameters: z.object({
    pattern: z.string().min(1).describe('Regular expression (without slashes), e.g. "log(Error|Warn)".'),
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
    const target = await searchTarget(ctx, userPath);
    const args = [
      ...RG_BASE,
      '--no-heading',
      '--with-filename',
      '--line-number',
      '--color',
      'never',
      '--max-filesize',
      MAX_FILE_BYTES,
      '--max-columns',
      String(MAX_LINE_CHARS),
      '--max-columns-preview',
      ...(glob ? ['-g', glob] : []),
      ...(ignoreCase ? ['-i'] : []),
      '-e',
      pattern,
      '--',
      ...(target.rel === '.' ? [] : [target.rel]),
    ];
    const rg = await runRipgrep(ctx, target.root, args, maxResults);
    if (rg.exitCode === 2 && rg.lines.length === 0) {
      const why = rg.stderr.replace(/^rg: /, '') || 'ripgrep failed';
      if (/regex parse error|error parsing/i.test(why))
        throw new Error(`Invalid regular expression "${pattern}": ${why}`);
      throw new Error(why);
    }
    if (rg.timedOut) throw new Error('The search took too long and was stopped; narrow the path, glob or pattern.');
    if (rg.lines.length === 0) return `No matches for /${pattern}/ in ${userPath}.`;
    const results = rg.lines.map((line) => {
      const at = line.search(/:\d+:/);
      return at === -1 ? line : shownPath(line.slice(0, at)) + line.slice(at);
    });
    const marker = rg.capped
      ? `\n[… results capped at ${results.length} matches; narrow the pattern, path or glob to see more …]`
      : '';
    return { content: results.join('\n') + marker, metadata: { count: results.length, capped: rg.capped } };
  },
});
