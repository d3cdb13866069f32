// The JSON Patch (RFC 6902) from one state document to the next, as AG-UI's STATE_DELTA carries it: objects are
// compared key by key (escaped as JSON Pointer tokens), anything else that changed is replaced whole.
import type { JsonPatchOperation } from '@ag-ui/core';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON Pointer token (RFC 6901: `~` as `~0`, `/` as `~1`). */
const token = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** The operations that turn `prev` into `next` (none when they are equal). */
export function statePatch(prev: unknown, next: unknown, path = ''): JsonPatchOperation[] {
  if (isObject(prev) && isObject(next)) {
    const ops: JsonPatchOperation[] = [];
    for (const key of Object.keys(prev))
      if (!(key in next) || next[key] === undefined) {
        if (prev[key] !== undefined) ops.push({ op: 'remove', path: `${path}/${token(key)}` });
      }
    for (const [key, value] of Object.entries(next)) {
      if (value === undefined) continue;
      const at = `${path}/${token(key)}`;
      if (!(key in prev) || prev[key] === undefined) ops.push({ op: 'add', path: at, value });
      else ops.push(...statePatch(prev[key], value, at));
    }
    return ops;
  }
  return JSON.stringify(prev) === JSON.stringify(next) ? [] : [{ op: 'replace', path, value: next }];
}
