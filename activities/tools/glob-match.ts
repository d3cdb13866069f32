// A glob matcher that runs in time linear in the path (a set of positions walked over the pattern, never
// backtracking), so no pattern a model writes can hold the worker's event loop: `**`, `*`, `?`, `{a,b}`, `[abc]`.

type Token =
  | { t: 'lit'; c: string }
  | { t: 'one' }
  | { t: 'star' }
  | { t: 'globstar' }
  | { t: 'dirs' }
  | { t: 'class'; neg: boolean; items: [string, string][] };

/** The most alternatives `{a,b}` groups may expand to in one pattern. */
const MAX_ALTERNATIVES = 256;

/** Expands `{a,b}` groups (nested too) into plain patterns. */
function expandBraces(pattern: string): string[] {
  let depth = 0;
  let open = -1;
  const commas: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') i++;
    else if (ch === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close !== -1) i = close;
    } else if (ch === '{') {
      if (depth++ === 0) open = i;
    } else if (ch === ',' && depth === 1) commas.push(i);
    else if (ch === '}' && depth > 0 && --depth === 0) {
      const cuts = [open, ...commas, i];
      const head = pattern.slice(0, open);
      const tails = expandBraces(pattern.slice(i + 1));
      const out: string[] = [];
      for (let k = 0; k + 1 < cuts.length; k++) {
        for (const mid of expandBraces(pattern.slice(cuts[k] + 1, cuts[k + 1])))
          for (const tail of tails) {
            out.push(head + mid + tail);
            if (out.length > MAX_ALTERNATIVES)
              throw new Error(`Invalid glob pattern: more than ${MAX_ALTERNATIVES} alternatives`);
          }
      }
      return out;
    }
  }
  if (depth > 0) throw new Error(`Invalid glob pattern "${pattern}": unclosed "{"`);
  return [pattern];
}

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '*') {
      if (pattern[i + 1] === '*') {
        const atSegmentStart = i === 0 || pattern[i - 1] === '/';
        i++;
        if (atSegmentStart && pattern[i + 1] === '/') {
          tokens.push({ t: 'dirs' }); // `**/` matches zero or more directories
          i++;
        } else tokens.push({ t: 'globstar' });
      } else if (tokens.at(-1)?.t !== 'star') tokens.push({ t: 'star' }); // `**` runs of `*` are one `*`
    } else if (ch === '?') tokens.push({ t: 'one' });
    else if (ch === '[' && pattern.indexOf(']', i + 2) !== -1) {
      const close = pattern.indexOf(']', i + 2);
      let body = pattern.slice(i + 1, close);
      const neg = body.startsWith('!') || body.startsWith('^');
      if (neg) body = body.slice(1);
      const items: [string, string][] = [];
      for (let k = 0; k < body.length; k++) {
        if (body[k + 1] === '-' && k + 2 < body.length) {
          items.push([body[k], body[k + 2]]);
          k += 2;
        } else items.push([body[k], body[k]]);
      }
      tokens.push({ t: 'class', neg, items });
      i = close;
    } else if (ch === '\\' && i + 1 < pattern.length) tokens.push({ t: 'lit', c: pattern[++i] });
    else tokens.push({ t: 'lit', c: ch });
  }
  return tokens;
}

/** Positions reachable from `state` without reading a character (past `*`, `**` and a directory run). */
function close(tokens: Token[], states: Set<number>): Set<number> {
  for (const s of states) {
    if (s < 0) continue;
    const tok = tokens[s];
    if (tok && (tok.t === 'star' || tok.t === 'globstar' || tok.t === 'dirs')) states.add(s + 1);
  }
  return states;
}

/** Whether `tokens` match all of `text`: every position is advanced one character at a time. */
function run(tokens: Token[], text: string): boolean {
  let states = close(tokens, new Set([0]));
  for (const c of text) {
    const next = new Set<number>();
    for (const s of states) {
      if (s < 0) {
        next.add(c === '/' ? ~s : s); // inside a directory name of `**/`: a `/` ends it
        continue;
      }
      const tok = tokens[s];
      if (!tok) continue;
      if (tok.t === 'lit' ? tok.c === c : tok.t === 'one') {
        if (tok.t === 'lit' || c !== '/') next.add(s + 1);
      } else if (tok.t === 'class') {
        const inSet = tok.items.some(([lo, hi]) => c >= lo && c <= hi);
        if (inSet !== tok.neg && c !== '/') next.add(s + 1);
      } else if (tok.t === 'star') {
        if (c !== '/') next.add(s);
      } else if (tok.t === 'globstar') next.add(s);
      else next.add(c === '/' ? s : ~s);
    }
    if (next.size === 0) return false;
    states = close(tokens, next);
  }
  return states.has(tokens.length);
}

/** Compiles a glob to a predicate over `/`-separated relative paths (the whole path must match). */
export function globMatch(pattern: string): (rel: string) => boolean {
  const alternatives = expandBraces(pattern).map(tokenize);
  return (rel) => alternatives.some((tokens) => run(tokens, rel));
}
