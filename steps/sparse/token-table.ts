/**
 * A hash table from a token, given as a span [start, end) of a string, to an integer (the index
 * builder's term id, or a stop-word mark), without slicing the string: most tokens of a collection
 * repeat (Zipf), and a slice plus a Map lookup per token was the largest single cost of building
 * an index. Keys are copied into one UTF-16 pool; open addressing with linear probing.
 * It is a cache: `clear()` when it grows past its budget; the caller keeps the authoritative map.
 */

export const MISSING = -1;

function hashSpan(text: string, start: number, end: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 15;
  return Math.imul(h, 0x2c1b3c6d) | 0;
}

export class TokenTable {
  private slots!: Int32Array; // entry index + 1, 0 = empty
  private mask = 0;
  private hashes!: Int32Array;
  private starts!: Float64Array;
  private lengths!: Uint16Array;
  private values!: Int32Array;
  private pool!: Uint16Array;
  private poolLength = 0;
  private count = 0;

  /** `maxEntries` and `maxChars` bound the memory (about 20 bytes per entry plus 2 per char). */
  constructor(
    private readonly maxEntries = 1 << 22,
    private readonly maxChars = 1 << 26,
  ) {
    this.clear();
  }

  get size(): number {
    return this.count;
  }

  clear(): void {
    this.slots = new Int32Array(1 << 12);
    this.mask = this.slots.length - 1;
    this.hashes = new Int32Array(1 << 11);
    this.starts = new Float64Array(1 << 11);
    this.lengths = new Uint16Array(1 << 11);
    this.values = new Int32Array(1 << 11);
    this.pool = new Uint16Array(1 << 15);
    this.poolLength = 0;
    this.count = 0;
  }

  /** The value stored for text[start, end), or MISSING. Tokens longer than 65535 units are never stored. */
  get(text: string, start: number, end: number): number {
    const len = end - start;
    const h = hashSpan(text, start, end);
    const slots = this.slots;
    const pool = this.pool;
    for (let s = h & this.mask; ; s = (s + 1) & this.mask) {
      const e = slots[s]! - 1;
      if (e < 0) return MISSING;
      if (this.hashes[e] !== h || this.lengths[e] !== len) continue;
      const p = this.starts[e]!;
      let i = 0;
      while (i < len && pool[p + i] === text.charCodeAt(start + i)) i++;
      if (i === len) return this.values[e]!;
    }
  }

  /** Stores value for text[start, end) (which must be MISSING); clears the table first when it is full. */
  set(text: string, start: number, end: number, value: number): void {
    const len = end - start;
    if (len > 0xffff) return;
    if (this.count >= this.maxEntries || this.poolLength + len > this.maxChars) this.clear();
    if (this.count === this.hashes.length) this.growEntries();
    if ((this.count + 1) * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    if (this.poolLength + len > this.pool.length) {
      const bigger = new Uint16Array(Math.max(this.pool.length * 2, this.poolLength + len));
      bigger.set(this.pool.subarray(0, this.poolLength));
      this.pool = bigger;
    }
    const e = this.count++;
    const h = hashSpan(text, start, end);
    for (let i = 0; i < len; i++) this.pool[this.poolLength + i] = text.charCodeAt(start + i);
    this.hashes[e] = h;
    this.starts[e] = this.poolLength;
    this.lengths[e] = len;
    this.values[e] = value;
    this.poolLength += len;
    this.place(e, h);
  }

  private place(e: number, h: number): void {
    let s = h & this.mask;
    while (this.slots[s] !== 0) s = (s + 1) & this.mask;
    this.slots[s] = e + 1;
  }

  private growEntries(): void {
    const n = this.hashes.length * 2;
    const grow = <T extends Int32Array | Float64Array | Uint16Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.hashes = grow(this.hashes, (k) => new Int32Array(k));
    this.starts = grow(this.starts, (k) => new Float64Array(k));
    this.lengths = grow(this.lengths, (k) => new Uint16Array(k));
    this.values = grow(this.values, (k) => new Int32Array(k));
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    for (let e = 0; e < this.count; e++) this.place(e, this.hashes[e]!);
  }
}
