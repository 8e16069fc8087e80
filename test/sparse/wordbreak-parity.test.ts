// StandardTokenizer and Anserini-analyzer parity with the live Lucene 8.8.1 peer, in one Java run:
// every code point (surrogates as lone code units) in the probe contexts, every code point through
// the whole analyzer chain, every sequence of three character classes, seeded fuzz (emoji soup,
// the 255-unit buffer edge) and hand-picked sequences and sentences. Java works while this process
// computes its own side. In CI (CI=true) a missing peer fails the tests instead of skipping them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { analyze } from "../../steps/sparse/analyzer.ts";
import { REPRESENTATIVES, WB_COUNT } from "../../steps/sparse/wordbreak-classes.ts";
import { wordBreakClass } from "../../steps/sparse/wordbreak.ts";
import { mulberry32 } from "../../steps/lib/prng.ts";
import { luceneAnalyze, luceneClasspath, luceneParity, peerOrSkip, type ParityResult } from "../peers/lucene/peer.ts";
import { PROBES } from "../peers/lucene/probes.ts";
import { hex, ourSweep, ourTermHashes, signatureOf, sweepDifferences } from "./sweep-runs.ts";
import { SENTENCES, SEQUENCES } from "./wordbreak-cases.ts";

/** Analyzer-chain contexts per code point: the token alone (lower-casing), inside a word Porter stems, a possessive. */
const CHAIN = ["\u0000", "a\u0000ing", "a\u0000's"];

/** Every class triple of representatives (27,000 texts). */
function classTriples(): string[] {
  const reps = REPRESENTATIVES.map((cp) => String.fromCodePoint(cp));
  const out: string[] = [];
  for (const a of reps) for (const b of reps) for (const c of reps) out.push(a + b + c);
  return out;
}

/** Seeded fuzz: strings of random members of random classes (no surrogates: texts travel as UTF-8). */
function fuzz(count: number, seed: number): string[] {
  const members: number[][] = Array.from({ length: WB_COUNT }, () => []);
  for (let cp = 0; cp <= 0x10ffff; cp++) if (cp < 0xd800 || cp > 0xdfff) members[wordBreakClass(cp)]!.push(cp);
  const r = mulberry32(seed);
  const pick = (k: number): number => Math.floor(r() * k);
  const member = (): string => {
    const cls = pick(WB_COUNT);
    // half the time the representative, so sequences of one class repeat often enough to join
    return String.fromCodePoint(r() < 0.5 ? REPRESENTATIVES[cls]! : members[cls]![pick(members[cls]!.length)]!);
  };
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let s = "";
    const n = 2 + pick(13);
    for (let j = 0; j < n; j++) s += member();
    out.push(s);
  }
  // The scanner's 255-unit window: long words (BMP or astral letters) whose end falls near it.
  for (let i = 0; i < 400; i++) {
    const letter = r() < 0.5 ? "a" : "\u{1D4B3}";
    let s = letter.repeat(Math.floor((235 + pick(25)) / letter.length));
    if (r() < 0.5) s = "a" + s; // shift astral letters by one unit
    for (let j = 0, n = 1 + pick(8); j < n; j++) s += member();
    out.push(s);
  }
  return out;
}

const peer = luceneClasspath();
const texts = [...SEQUENCES, ...classTriples(), ...fuzz(6000, 12)];
const lucene: Promise<ParityResult> | null =
  "classpath" in peer ? luceneParity(peer.classpath, { probes: PROBES, chain: CHAIN, texts, sentences: SENTENCES }) : null;
lucene?.catch(() => undefined); // reported by the tests that await it

/** Lucene's answers, still on their way; null (test skipped) without the peer, a failure in CI. */
function fromLucene(t: { skip: (m?: string) => void }): Promise<ParityResult> | null {
  return peerOrSkip(t) === null ? null : lucene;
}

test("every code point tokenizes like Lucene 8.8.1 in every probe context (live peer)", async (t) => {
  const pending = fromLucene(t);
  if (pending === null) return;
  const ours = ourSweep(PROBES);
  const theirs = await pending;
  assert.equal(theirs.runs[0]?.first, 0);
  assert.equal(theirs.runs[theirs.runs.length - 1]?.last, 0x10ffff);
  const diffs = sweepDifferences(ours, theirs.runs, 10);
  assert.deepEqual(diffs.map((d) => `${hex(d.first)}..${hex(d.last)} ours ${d.ours} lucene ${d.lucene}`), []);
  t.diagnostic(`${theirs.runs.length} runs of equal tokens over 1,114,112 code points, ${PROBES.length} probes`);
});

test("every code point goes through Anserini's analyzer chain like Lucene's (live peer)", async (t) => {
  const pending = fromLucene(t);
  if (pending === null || !("classpath" in peer)) return;
  const ours = ourTermHashes(CHAIN);
  const theirs = await pending;
  const wrong: number[] = [];
  for (let cp = 0; cp <= 0x10ffff && wrong.length < 10; cp++) if (ours[cp] !== theirs.termHashes[cp]) wrong.push(cp);
  if (wrong.length > 0) {
    // the hashes differ: show both term lists (surrogates travel as U+FFFD here)
    const chainText = (cp: number): string => CHAIN.map((c) => c.replace("\u0000", String.fromCodePoint(cp))).join(" ");
    const lucTerms = luceneAnalyze(peer.classpath, "anserini", wrong.map(chainText));
    assert.deepEqual(
      wrong.map((cp) => `${hex(cp)}: ${JSON.stringify(analyze(chainText(cp)))}`),
      wrong.map((cp, i) => `${hex(cp)}: ${JSON.stringify(lucTerms[i])}`),
    );
  }
});

test("class triples, fuzz and hand-picked sequences tokenize like Lucene, types included (live peer)", async (t) => {
  const pending = fromLucene(t);
  if (pending === null) return;
  const ours = texts.map(signatureOf);
  const theirs = await pending;
  assert.equal(theirs.texts.length, texts.length);
  const wrong = texts.flatMap((x, i) => (ours[i] === theirs.texts[i] ? [] : [`${JSON.stringify(x)} ours ${ours[i]} lucene ${theirs.texts[i]}`]));
  assert.deepEqual(wrong.slice(0, 10), []);
  t.diagnostic(`${texts.length} texts compared`);
});

test("sentences with symbols, emoji and scripts analyze to Lucene's terms (live peer)", async (t) => {
  const pending = fromLucene(t);
  if (pending === null) return;
  assert.deepEqual(SENTENCES.map(analyze), (await pending).sentences);
});
