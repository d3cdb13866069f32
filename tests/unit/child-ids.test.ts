// Child workflow ids stay within what every Temporal persistence keeps (PostgreSQL: 255 characters), however deep a
// tree nests, and stay distinct and deterministic when they are shortened.
import { MAX_CHILD_ID_CHARS, boundedChildId } from '../../workflows/nesting/child-context';

describe('boundedChildId', () => {
  const root = 'run-0b7c1c55-3a7e-4f0e-9f43-8a9b8f1d2e3c';

  it('keeps an id within the limit as it is', () => {
    const id = `${root}/tool/3-call_0`;
    expect(boundedChildId(id)).toBe(id);
  });

  it('shortens a deep id to the limit, keeping its root as prefix and telling apart ids that differ only at the end', () => {
    const deep = `${root}${'/tool/3-call_abcdefghijklmnopqrstuvwx'.repeat(8)}`;
    const a = boundedChildId(`${deep}/tool/3-call_a`);
    const b = boundedChildId(`${deep}/tool/3-call_b`);
    expect(a.length).toBe(MAX_CHILD_ID_CHARS);
    expect(a.startsWith(`${root}/tool/`)).toBe(true);
    expect(a).not.toBe(b);
    expect(boundedChildId(`${deep}/tool/3-call_a`)).toBe(a);
    expect(a).toMatch(/~[0-9a-f]{16}$/);
  });
});
