// A generated collection and random queries for the pruning tests (block-max search vs exhaustive).
import { mulberry32 as rng } from "../../steps/lib/prng.ts";

const WORDS = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}`);

/** Zipfian words; lengths from 1 to ~300 terms so norm bytes vary; some documents repeat a word many times. */
export function collection(n: number, seed: number): { id: string; text: string }[] {
  const r = rng(seed);
  const docs: { id: string; text: string }[] = [];
  for (let i = 0; i < n; i++) {
    const len = r() < 0.1 ? 150 + Math.floor(r() * 150) : 1 + Math.floor(r() * 40);
    const words: string[] = [];
    for (let j = 0; j < len; j++) words.push(WORDS[Math.floor(WORDS.length * r() ** 3)]!);
    if (r() < 0.05) for (let j = 0; j < 20; j++) words.push(WORDS[Math.floor(r() * 30)]!);
    // ids not in insertion order, so ties must be broken by id, not by doc number
    docs.push({ id: `p${((i * 7919) % n).toString().padStart(5, "0")}`, text: words.join(" ") });
  }
  docs.push({ id: "empty", text: "" });
  return docs;
}

export function queries(n: number, seed: number): string[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => {
    const len = 1 + Math.floor(r() * 12);
    // biased towards frequent words (low idf: the case pruning is for), with repeats (boosts)
    return Array.from({ length: len }, () => WORDS[Math.floor(WORDS.length * r() ** 1.5)]!).join(" ");
  });
}
