/**
 * QReCC ships no dev set: the authors cut 2,000 conversations out of train. This does the
 * same with a seeded shuffle (their exact conversations cannot be recovered: they used
 * Python's RNG; ours is a documented, portable one).
 *
 * Rule: the distinct conversation ids are sorted (numeric-aware), shuffled with
 * Fisher-Yates driven by splitmix32(seed), and the first `n` become dev, where
 * n = min(devConversations, floor(total * maxFraction)) — so small inputs (the mini world,
 * test fixtures) keep most conversations for training; the real train set (~10.8k
 * conversations) gets exactly 2,000 with the default maxFraction 0.2. With total >= 2 and
 * devConversations >= 1 at least one conversation goes to dev.
 */
import { compareIds } from "../schemas.ts";

/** splitmix32: a small, well-mixed 32-bit PRNG; returns floats in [0, 1). */
export function splitmix32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    z = (z ^ (z >>> 16)) >>> 0;
    return z / 4294967296;
  };
}

export interface DevSplitParams {
  readonly devConversations: number;
  readonly seed: number;
  /** Upper bound on the dev share of conversations (default 0.2). */
  readonly maxFraction?: number;
}

export function devSize(total: number, params: DevSplitParams): number {
  const maxFraction = params.maxFraction ?? 0.2;
  if (!Number.isInteger(params.devConversations) || params.devConversations < 0) throw new RangeError(`devConversations must be a non-negative integer, got ${params.devConversations}`);
  if (!(maxFraction >= 0 && maxFraction < 1)) throw new RangeError(`maxFraction must be in [0, 1), got ${maxFraction}`);
  if (total < 2 || params.devConversations === 0) return 0;
  return Math.min(params.devConversations, Math.max(1, Math.floor(total * maxFraction)));
}

/** The conversation ids that go to dev (sorted). */
export function chooseDevConversations(conversationIds: Iterable<string>, params: DevSplitParams): string[] {
  const ids = [...new Set(conversationIds)].sort(compareIds);
  const n = devSize(ids.length, params);
  const rand = splitmix32(params.seed);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = ids[i]!;
    ids[i] = ids[j]!;
    ids[j] = t;
  }
  return ids.slice(0, n).sort(compareIds);
}
