// Permission rules (DESIGN.md section 7): a rule's `tool` is a name or a glob over names (an MCP server's `fs__*`),
// and rules written before globs existed decide exactly as they did.
import { decidePermission, ruleNamesTool, type PermissionRule } from '../../common';

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
    expect(decidePermission(rules, 'fs__read_text_file', { path: 'secrets/key.pem' })).toMatchObject({ action: 'deny', rule: rules[0] });
    expect(decidePermission(rules, 'fs__move_file', { source: 'a', destination: 'b' })).toMatchObject({ action: 'deny', rule: rules[1] });
    expect(decidePermission(rules, 'fs__read_text_file', { path: 'notes/a.md' })).toMatchObject({ action: 'ask', rule: rules[2] });
  });
});
