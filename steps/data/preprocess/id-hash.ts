/**
 * Duplicate-id detection over collections of tens of millions of passages with bounded
 * memory per id: a JS Set of 54M strings costs several GB, so each id is hashed to
 * 64 bits (two independent 32-bit FNV-1a/murmur-style hashes over UTF-16 code units)
 * and stored in a growable typed array (8 bytes per id, ~430 MB for QReCC's 54M).
 * At the end the array is sorted and adjacent equal values are suspects. A suspect is
 * either a real duplicate or a 64-bit collision (p ≈ n²/2⁶⁵ ≈ 1e-4 at 54M), so the
 * caller confirms suspects with a second pass that compares the actual strings (and can
 * then name both lines).
 */

/** Two 32-bit hashes of a string (lo, hi). */
export function hash64(s: string): [number, number] {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h2 = Math.imul(h2 ^ (h2 >>> 16), 0xc2b2ae35);
  h2 ^= h2 >>> 16;
  return [h1 >>> 0, h2 >>> 0];
}

/** The 64-bit key of a string as a bigint (lo | hi << 32). */
export function hashKey(s: string): bigint {
  const [lo, hi] = hash64(s);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

export class IdHashSet {
  private words: Uint32Array;
  private n = 0;

  constructor(initialCapacity = 1 << 16) {
    this.words = new Uint32Array(Math.max(2, initialCapacity * 2));
  }

  get size(): number {
    return this.n;
  }

  add(id: string): void {
    if (this.n * 2 >= this.words.length) {
      const bigger = new Uint32Array(this.words.length * 2);
      bigger.set(this.words);
      this.words = bigger;
    }
    const [lo, hi] = hash64(id);
    // little-endian: the BigUint64Array view reads (lo, hi) as lo + hi * 2^32
    this.words[this.n * 2] = lo;
    this.words[this.n * 2 + 1] = hi;
    this.n++;
  }

  /** Hash keys seen more than once (sorts in place; call once, at the end). */
  suspects(): Set<bigint> {
    const keys = new BigUint64Array(this.words.buffer, 0, this.n);
    keys.sort();
    const out = new Set<bigint>();
    for (let i = 1; i < keys.length; i++) if (keys[i] === keys[i - 1]) out.add(keys[i]!);
    return out;
  }
}
