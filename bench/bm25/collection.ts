/**
 * The BM25 benchmarks' synthetic collection and queries (seeded, so every run and every system
 * sees the same bytes): 50k pronounceable words drawn with Zipf's law (word i with probability
 * ~ 1 / (i + 1)^1.07), passages of 40-159 words (QReCC-like, ~100 words), 30% of them with a
 * possessive, a decimal and an acronym; queries of 3-12 words from the same distribution (the
 * most frequent words are stop words, as in English). Written as `id \t text` lines, which both
 * cspipe and the Lucene peer read.
 */
import { closeSync, createWriteStream, existsSync, mkdirSync, openSync, readSync, renameSync } from "node:fs";
import { dirname } from "node:path";
import { once } from "node:events";
import { mulberry32 as rng } from "../../steps/lib/prng.ts";

interface Vocabulary {
  readonly words: string[];
  readonly cdf: Float64Array;
}

function makeVocabulary(r: () => number): Vocabulary {
  const syll = ["ka", "to", "ri", "men", "sa", "lo", "ver", "ing", "tion", "al", "es", "pre", "con", "st", "ed", "ly", "ou", "an", "er", "mi"];
  const words: string[] = ["the", "of", "and", "a", "to", "in", "is", "was", "for", "on", "that", "with", "as", "by", "it"];
  const seen = new Set(words);
  while (words.length < 50_000) {
    let w = "";
    const n = 1 + Math.floor(r() * 4);
    for (let i = 0; i < n; i++) w += syll[Math.floor(r() * syll.length)];
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  const cdf = new Float64Array(words.length);
  let sum = 0;
  for (let i = 0; i < words.length; i++) cdf[i] = sum += 1 / (i + 1) ** 1.07;
  for (let i = 0; i < words.length; i++) cdf[i]! /= sum;
  return { words, cdf };
}

function sampler(v: Vocabulary, r: () => number): () => string {
  return () => {
    const u = r();
    let lo = 0;
    let hi = v.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (v.cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return v.words[lo]!;
  };
}

/** Passages doc0 .. doc<n-1>. */
export function* passages(n: number): Generator<{ id: string; text: string }> {
  const r = rng(1);
  const word = sampler(makeVocabulary(rng(7)), r);
  for (let i = 0; i < n; i++) {
    const len = 40 + Math.floor(r() * 120);
    const w: string[] = [];
    for (let j = 0; j < len; j++) w.push(word());
    if (r() < 0.3) w.push("Paris's", "3.5", "U.S.A.");
    yield { id: `doc${i}`, text: w.join(" ") + "." };
  }
}

/** Queries q0 .. q<n-1> of minWords..maxWords words. */
export function queries(n: number, minWords = 3, maxWords = 12): { qid: string; text: string }[] {
  const r = rng(2);
  const word = sampler(makeVocabulary(rng(7)), r);
  return Array.from({ length: n }, (_, i) => ({ qid: `q${i}`, text: Array.from({ length: minWords + Math.floor(r() * (maxWords - minWords + 1)) }, word).join(" ") }));
}

/** Writes `id \t text` lines to path (through a temporary name, so a killed run leaves no half file); skips when it exists. */
export async function writeTsv(path: string, rows: Iterable<{ id: string; text: string }>): Promise<void> {
  if (existsSync(path)) return;
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  const out = createWriteStream(tmp);
  for (const row of rows) {
    if (!out.write(`${row.id}\t${row.text}\n`)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  renameSync(tmp, path);
}

/** Streams `id \t text` lines back (synchronous reads of 16 MiB chunks, like Java's BufferedReader). */
export function* readTsv(path: string): Generator<{ id: string; text: string }> {
  const fd = openSync(path, "r");
  try {
    const buf = new Uint8Array(1 << 24);
    const dec = new TextDecoder();
    let rest = "";
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      const text = rest + dec.decode(buf.subarray(0, n), { stream: n > 0 });
      const lines = text.split("\n");
      rest = n > 0 ? lines.pop()! : "";
      for (const line of lines) {
        if (line === "") continue;
        const tab = line.indexOf("\t");
        yield { id: line.slice(0, tab), text: line.slice(tab + 1) };
      }
      if (n === 0) break;
    }
  } finally {
    closeSync(fd);
  }
}
