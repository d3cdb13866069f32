// Shared by glob and grep: a recursive, sorted directory walk that stays inside the workspace, and a
// small glob-pattern → RegExp converter (`**`, `*`, `?`, `{a,b}`, `[abc]`).
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isInside } from './workspace';

/** Directory names the walk never descends into. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set(['node_modules', '.git']);

/** A file found by `walkFiles`. */
export interface WalkedFile {
  /** Absolute path (inside the workspace). */
  abs: string;
  /** Path relative to the walk's start directory, with `/` separators. */
  rel: string;
}

/** Options of `walkFiles`. */
export interface WalkOptions {
  /** Real workspace root; symlinks resolving outside it are skipped. */
  root: string;
  signal?: AbortSignal;
  /** Called every few hundred entries (e.g. to heartbeat). */
  onProgress?: () => void;
}

/**
 * Yields the regular files under `dir` (real path) in sorted order, skipping `node_modules` and `.git`.
 * Symlinked files are yielded only when they resolve inside the workspace; symlinked dirs are not entered.
 */
export function walkFiles(dir: string, opts: WalkOptions): AsyncGenerator<WalkedFile> {
  return walk(dir, '', opts, { seen: 0 });
}

async function* walk(
  dir: string,
  relDir: string,
  opts: WalkOptions,
  state: { seen: number },
): AsyncGenerator<WalkedFile> {
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return; // unreadable directory: skip it rather than fail the whole walk
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (opts.signal?.aborted) throw new Error('Aborted');
    if (++state.seen % 500 === 0) opts.onProgress?.();
    const abs = path.join(dir, entry.name);
    const rel = relDir ? `${relDir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* walk(abs, rel, opts, state);
    } else if (entry.isFile()) {
      yield { abs, rel };
    } else if (entry.isSymbolicLink()) {
      try {
        const real = await fs.realpath(abs);
        if (isInside(opts.root, real) && (await fs.stat(real)).isFile()) yield { abs: real, rel };
      } catch {
        // dangling link: nothing to yield
      }
    }
  }
}

function escapeRegExp(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
}

/** Converts a glob pattern to an anchored RegExp matched against `/`-separated relative paths. */
export function globToRegExp(pattern: string, flags = ''): RegExp {
  let re = '';
  let braceDepth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '*') {
      if (pattern[i + 1] === '*') {
        const atSegmentStart = i === 0 || pattern[i - 1] === '/';
        i++;
        if (atSegmentStart && pattern[i + 1] === '/') {
          re += '(?:.*/)?'; // `**/` matches zero or more directories
          i++;
        } else {
          re += '.*';
        }
      } else {
        re += '[^/]*';
      }
    } else if (ch === '?') {
      re += '[^/]';
    } else if (ch === '{') {
      braceDepth++;
      re += '(?:';
    } else if (ch === '}' && braceDepth > 0) {
      braceDepth--;
      re += ')';
    } else if (ch === ',' && braceDepth > 0) {
      re += '|';
    } else if (ch === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close === -1) {
        re += '\\[';
      } else {
        let body = pattern.slice(i + 1, close);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        re += `[${body.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else if (ch === '\\' && i + 1 < pattern.length) {
      re += escapeRegExp(pattern[++i]);
    } else {
      re += escapeRegExp(ch);
    }
  }
  if (braceDepth > 0) throw new Error(`Invalid glob pattern "${pattern}": unclosed "{"`);
  return new RegExp(`^${re}$`, flags);
}

/** A predicate for file filters: patterns without `/` match the base name, others the relative path. */
export function globMatcher(pattern: string): (rel: string) => boolean {
  const re = globToRegExp(pattern);
  if (pattern.includes('/')) return (rel) => re.test(rel);
  return (rel) => re.test(rel.slice(rel.lastIndexOf('/') + 1));
}
