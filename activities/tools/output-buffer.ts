// Bounded capture of command output: keeps the first and last bytes and counts what was dropped between.
const decoder = (buf: Buffer) => buf.toString('utf8');

/** Collects byte chunks up to `limit` bytes, keeping the head and the tail and dropping the middle. */
export class HeadTailBuffer {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headLen = 0;
  private tail: Buffer[] = [];
  private tailLen = 0;
  /** Total bytes pushed so far. */
  total = 0;

  constructor(readonly limit: number) {
    this.headLimit = Math.floor(limit / 2);
    this.tailLimit = limit - this.headLimit;
  }

  /** Adds a chunk. */
  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headLen < this.headLimit) {
      const take = chunk.subarray(0, this.headLimit - this.headLen);
      this.head.push(take);
      this.headLen += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailLen += chunk.length;
    while (this.tailLen - this.tail[0].length >= this.tailLimit) this.tailLen -= this.tail.shift()!.length;
    if (this.tailLen > this.tailLimit) {
      this.tail[0] = this.tail[0].subarray(this.tailLen - this.tailLimit);
      this.tailLen = this.tailLimit;
    }
  }

  /** Bytes dropped from the middle. */
  get droppedBytes(): number {
    return this.total - this.headLen - this.tailLen;
  }

  /** The kept text, with a `[… N bytes truncated …]` marker where bytes were dropped. */
  toString(): string {
    if (this.droppedBytes === 0) return decoder(Buffer.concat([...this.head, ...this.tail]));
    return `${decoder(Buffer.concat(this.head))}\n[… ${this.droppedBytes} bytes truncated …]\n${decoder(Buffer.concat(this.tail))}`;
  }
}

/** Cuts `text` to at most `limit` UTF-8 bytes, appending a marker saying how many bytes were dropped. */
export function capText(text: string, limit: number): { text: string; truncatedBytes: number } {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= limit) return { text, truncatedBytes: 0 };
  const truncatedBytes = buf.length - limit;
  return { text: `${decoder(buf.subarray(0, limit))}\n[… ${truncatedBytes} bytes truncated …]`, truncatedBytes };
}
