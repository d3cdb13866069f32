// Permission rules (docs/ARCHITECTURE.md, "Approvals"): a rule's `tool` is a name or a glob over names (an MCP server's
// `fs__*`), and rules written before globs existed decide exactly as they did.
import { decidePermission, globMatches, ruleNamesTool, type PermissionRule } from '../../common';

describe('permission rules', () => {
  it('matches a glob in `tool` against tool names', () => {
    const rules: PermissionRule[] = [{ tool: 'fs__*', action: 'ask' }];
    expect(decidePermission(rules, 'fs__write_file', { path: 'a.txt' })).toEqual({ action: 'ask', rule: rules[0] });
    expect(decidePermission(rules, 'fs__read_text_file', {})).toMatchObject({ action: 'ask' });
    expect(decidePermission(rules, 'everything__echo', {})).toEqual({ action: 'allow' });
    expect(decidePermission(rules, 'fs', {})).toEqual({ action: 'allow' });
  });

  it('matches `?` as one character and anchors the glob at both ends', () => {
    expect(ruleNamesTool('file_?rite', 'file_write')).toBe(true);
    expect(ruleNamesTool('file_?rite', 'file_overwrite')).toBe(false);
    expect(ruleNamesTool('*__echo', 'everything__echo')).toBe(true);
    expect(ruleNamesTool('*__echo', 'everything__echo2')).toBe(false);
    expect(ruleNamesTool('fs__*', 'xfs__read')).toBe(false);
  });

  it('keeps exact names and `*` as before', () => {
    expect(ruleNamesTool('bash', 'bash')).toBe(true);
    expect(ruleNamesTool('bash', 'bash2')).toBe(false);
    expect(ruleNamesTool('*', 'anything-at-all')).toBe(true);
    // Characters a glob treats specially elsewhere are literal here.
    expect(ruleNamesTool('a.b', 'axb')).toBe(false);
  });

  it('lets a deny on one tool win over an ask on its whole server, and a pattern narrow a glob rule', () => {
    const rules: PermissionRule[] = [
      { tool: 'fs__*', pattern: 'secrets/*', action: 'deny' },
      { tool: 'fs__move_file', action: 'deny' },
      { tool: 'fs__*', action: 'ask' },
    ];
    expect(decidePermission(rules, 'fs__read_text_file', { path: 'secrets/key.pem' })).toMatchObject({
      action: 'deny',
      rule: rules[0],
    });
    expect(decidePermission(rules, 'fs__move_file', { source: 'a', destination: 'b' })).toMatchObject({
      action: 'deny',
      rule: rules[1],
    });
    expect(decidePermission(rules, 'fs__read_text_file', { path: 'notes/a.md' })).toMatchObject({
      action: 'ask',
      rule: rules[2],
    });
  });

  it('matches globs exactly as the RegExp it replaced did, on every pair of a small alphabet', () => {
    // The decisions of runs recorded before the linear matcher must not change (they replay through it).
    const asRegExp = (glob: string) =>
      new RegExp(
        `^${glob
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '.*')
          .replace(/\?/g, '.')}$`,
        's',
      );
    const words = (alphabet: string[], max: number): string[] => {
      const out = [''];
      for (let n = 0; n < out.length && out[out.length - 1].length < max; n++)
        for (const c of alphabet) if (out[n].length < max) out.push(out[n] + c);
      return out;
    };
    const globs = words(['a', 'b', '*', '?', '.'], 4);
    const texts = words(['a', 'b', '\n', '.'], 5);
    let pairs = 0;
    for (const glob of globs) {
      const re = asRegExp(glob);
      for (const text of texts) {
        pairs++;
        if (globMatches(glob, text) !== re.test(text))
          throw new Error(
            `glob ${JSON.stringify(glob)} on ${JSON.stringify(text)}: ${globMatches(glob, text)}, the RegExp says ${re.test(text)}`,
          );
      }
    }
    expect(pairs).toBeGreaterThan(50_000);
  });

  it('decides a rule with many stars on a long subject without backtracking for ever', () => {
    // The RegExp of this glob never finishes on this subject (it tries every way to split the a's between the stars).
    const rules: PermissionRule[] = [{ tool: 'bash', pattern: `${'a*'.repeat(12)}b`, action: 'deny' }];
    expect(decidePermission(rules, 'bash', { command: 'a'.repeat(20_000) })).toEqual({ action: 'allow' });
    expect(decidePermission(rules, 'bash', { command: `${'a'.repeat(20_000)}b` })).toMatchObject({ action: 'deny' });
  });

  it('matches a rule with `arguments` (what remember records) only for exactly those arguments, and a deny still wins', () => {
    const rules: PermissionRule[] = [
      { tool: 'bash', pattern: '*curl*', action: 'deny' },
      { tool: 'bash', arguments: JSON.stringify({ command: 'git status' }), action: 'allow' },
      { tool: 'bash', action: 'ask' },
    ];
    expect(decidePermission(rules, 'bash', { command: 'git status' })).toMatchObject({ action: 'allow' });
    expect(decidePermission(rules, 'bash', { command: 'git status; rm -rf /' })).toMatchObject({ action: 'ask' });
    expect(decidePermission(rules, 'bash', { command: 'git status', cwd: '/' })).toMatchObject({ action: 'ask' });
    expect(decidePermission(rules, 'fs__read', { command: 'git status' })).toEqual({ action: 'allow' });
    const curl = [{ ...rules[1], arguments: JSON.stringify({ command: 'curl x' }) }, rules[0]];
    expect(decidePermission(curl, 'bash', { command: 'curl x' })).toMatchObject({ action: 'deny' });
  });
});
