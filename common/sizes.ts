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

/** The message of a model input over `maxModelInputBytes`. */
export function modelInputTooLargeMessage(what: string, bytes: number, limit: number): string {
  return `${what} is ${bytes} bytes, over the run's maxModelInputBytes of ${limit}: shorten it, or raise the limit (Temporal payloads are capped at 2 MiB)`;
}
