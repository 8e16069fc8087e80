/**
 * Seeded pseudo-random numbers for the mini benchmark generator.
 *
 * mulberry32 for the stream, FNV-1a + a murmur3 finaliser to derive independent
 * sub-seeds from labels. `rngFor(seed, "entity", 17)` always gives the same stream,
 * whatever else was generated before: that is what lets a 1M-passage collection be
 * produced entity by entity without holding the world in memory.
 */
import { mulberry32 } from "../../lib/prng.ts";

/** FNV-1a over UTF-16 code units, 32-bit unsigned. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** murmur3 fmix32: avalanches all bits of a 32-bit value. */
export function fmix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Combine a seed with one label (number or string) into a new 32-bit seed. */
export function mixSeed(seed: number, label: number | string): number {
  const l = typeof label === "number" ? fmix32(label + 0x9e3779b9) : hashString(label);
  return fmix32((Math.imul(seed >>> 0, 0x27d4eb2d) ^ l) + 0x165667b1);
}

export class Rng {
  /** Float in [0, 1). */
  readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(fmix32(seed >>> 0) || 0x6d2b79f5);
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Integer in [lo, hi] (inclusive). */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("Rng.pick: empty list");
    return items[this.int(items.length)] as T;
  }

  /** Picks by weight; weights need not sum to 1. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of items) total += w;
    let r = this.next() * total;
    for (const [item, w] of items) {
      r -= w;
      if (r < 0) return item;
    }
    const last = items[items.length - 1];
    if (last === undefined) throw new Error("Rng.weighted: empty list");
    return last[0];
  }

  /** Fisher-Yates, in place; returns the same array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const a = items[i] as T;
      items[i] = items[j] as T;
      items[j] = a;
    }
    return items;
  }
}

/** A fresh stream for (seed, ...labels), independent of any other stream. */
export function rngFor(seed: number, ...labels: (number | string)[]): Rng {
  let s = seed >>> 0;
  for (const l of labels) s = mixSeed(s, l);
  return new Rng(s);
}

/** Picks items by fixed weights in O(log n) (cumulative sums, binary search); weights need not sum to 1. */
export class WeightedPicker<T> {
  private readonly cumulative: Float64Array;

  constructor(private readonly items: readonly T[], weights: readonly number[]) {
    if (items.length === 0 || items.length !== weights.length) throw new Error("WeightedPicker: items and weights must be non-empty and of equal length");
    this.cumulative = new Float64Array(items.length);
    let total = 0;
    weights.forEach((w, i) => {
      total += w;
      this.cumulative[i] = total;
    });
  }

  pick(rng: Rng): T {
    const r = rng.next() * (this.cumulative[this.cumulative.length - 1] as number);
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.cumulative[mid] as number) > r) hi = mid;
      else lo = mid + 1;
    }
    return this.items[lo] as T;
  }
}
