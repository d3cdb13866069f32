// Payload sizes, measured the same way in workflows (no Buffer there), the client and the bridge: Temporal caps
// every payload (2 MiB by default), so a run checks what it is about to send before sending it.

/** UTF-8 length of a string in bytes. */
export function utf8Bytes(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** Size of a value as JSON, in UTF-8 bytes. */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value) ?? '');
}

/**
 * JSON text (tool-call arguments) with every string value longer than `maxValueBytes` replaced by `note(its bytes)`,
 * short values and the structure kept. `invalid` when the text is not JSON; `not-shorter` when the result is not
 * under half the original (large without long strings, e.g. a big array of numbers): the caller then drops it whole.
 */
export function shortenJsonStrings(
  json: string,
  maxValueBytes: number,
  note: (bytes: number) => string,
): string | 'invalid' | 'not-shorter' {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return 'invalid';
  }
  const shorten = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const bytes = utf8Bytes(value);
      return bytes > maxValueBytes ? note(bytes) : value;
    }
    if (Array.isArray(value)) return value.map(shorten);
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shorten(v)]));
    return value;
  };
  const shortened = JSON.stringify(shorten(parsed));
  return utf8Bytes(shortened) < utf8Bytes(json) / 2 ? shortened : 'not-shorter';
}

/** The message of a model input over `maxModelInputBytes`. */
export function modelInputTooLargeMessage(what: string, bytes: number, limit: number): string {
  return `${what} is ${bytes} bytes, over the run's maxModelInputBytes of ${limit}: shorten it, or raise the limit (Temporal payloads are capped at 2 MiB)`;
}
