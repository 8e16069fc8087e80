// Parity with Lucene 8 (Debian's liblucene8-java) through test/peers/lucene/LuceneBm25.java:
// a few hundred generated documents (Zipfian words, possessives, numbers, stop words, repeated
// terms, empty and stop-word-only documents, very long documents) plus tricky texts; scores must
// agree to 1e-4 (in practice they are bit-identical floats) and rankings must be identical.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildIndexSync } from "../../steps/sparse/index.ts";
import { Searcher } from "../../steps/sparse/search.ts";
import { luceneSearch, peerOrSkip } from "../peers/lucene/peer.ts";
import { mulberry32 as rng } from "../../steps/lib/prng.ts";



const VOCAB = [
  "the", "of", "and", "a", "to", "in", "is", "was", "it", "for", "music", "musical", "musician", "running", "runs", "run",
  "runner", "connection", "connected", "connecting", "generalization", "general", "Paris", "France's", "city", "cities",
  "population", "3.5", "1,000", "2022", "don't", "U.S.A.", "e-mail", "rock'n'roll", "happy", "happiness", "studies",
  "studying", "relational", "conditional", "caresses", "ponies", "ties", "hopping", "feed", "agreed", "dying", "sky",
  "Zürich", "naïve", "東京", "foo_bar", "O'Neil's", "THE", "Music", "TV", "episode", "season", "actor", "film",
];

function corpus(n: number, seed: number): { id: string; text: string }[] {
  const r = rng(seed);
  const docs: { id: string; text: string }[] = [];
  for (let i = 0; i < n; i++) {
    const len = i % 50 === 7 ? 400 + Math.floor(r() * 300) : Math.floor(r() * 60);
    const words: string[] = [];
    for (let j = 0; j < len; j++) words.push(VOCAB[Math.floor(VOCAB.length * r() ** 2.5)]!);
    docs.push({ id: `doc${String(i).padStart(4, "0")}`, text: words.join(r() < 0.2 ? ", " : " ") });
  }
  docs.push({ id: "doc9990", text: "" });
  docs.push({ id: "doc9991", text: "the and of a is it" });
  docs.push({ id: "doc9992", text: "The Beatles' album, Abbey Road (1969), sold 31,000,000 copies; Lennon's & McCartney's songs." });
  docs.push({ id: "doc9993", text: "music music music music music music music music music music music music music music music music music music music music music music music music music" });
  return docs;
}

function queries(n: number, seed: number): { qid: string; text: string }[] {
  const r = rng(seed);
  const qs: { qid: string; text: string }[] = [];
  for (let i = 0; i < n; i++) {
    const len = 1 + Math.floor(r() * 8);
    const words: string[] = [];
    for (let j = 0; j < len; j++) words.push(VOCAB[Math.floor(VOCAB.length * r())]!);
    qs.push({ qid: `q${i}`, text: words.join(" ") });
  }
  qs.push({ qid: "q-repeat", text: "music music run" });
  qs.push({ qid: "q-beatles", text: "What did Lennon's band sell, the Beatles?" });
  qs.push({ qid: "q-stop", text: "the of and" });
  qs.push({ qid: "q-unknown", text: "zzzz unknownword" });
  return qs;
}

// The second case inserts documents in shuffled order: Anserini (and the peer) break score ties by
// the id field, not by Lucene's internal doc number, and so do we. The third uses blocks of 8
// postings and k = 10, so block-max pruning skips most documents, and must still equal Lucene.
for (const [name, params, shuffle, blockSize, k] of [
  ["QReCC k1=0.82 b=0.68", { k1: 0.82, b: 0.68 }, false, 128, 50],
  ["TopiOCQA k1=0.9 b=0.4, shuffled insertion order", { k1: 0.9, b: 0.4 }, true, 128, 50],
  ["QReCC k1=0.82 b=0.68, blocks of 8, k=10", { k1: 0.82, b: 0.68 }, true, 8, 10],
] as const) {
  test(`BM25 scores and rankings equal Lucene 8's (${name})`, (t) => {
    const classpath = peerOrSkip(t);
    if (classpath === null) return;
    const docs = corpus(400, 7);
    if (shuffle) {
      const r = rng(3);
      for (let i = docs.length - 1; i > 0; i--) {
        const j = Math.floor(r() * (i + 1));
        [docs[i], docs[j]] = [docs[j]!, docs[i]!];
      }
    }
    const qs = queries(120, 11);
    const lucene = luceneSearch(classpath, docs, qs, { ...params, k });
    const index = buildIndexSync(docs, { blockSize });
    assert.equal(index.docCount, lucene.stats.docCount);
    assert.equal(index.sumTotalTermFreq, lucene.stats.sumTotalTermFreq);
    assert.equal(index.numDocs, lucene.stats.maxDoc);
    const searcher = new Searcher(index, params);
    let compared = 0;
    let ties = 0;
    let maxDiff = 0;
    let exact = 0;
    for (const q of qs) {
      const ours = searcher.search(q.text, k);
      const theirs = lucene.hits.get(q.qid) ?? [];
      assert.deepEqual(ours.map((h) => h.pid), theirs.map(([id]) => id), `ranking differs for ${q.qid} "${q.text}"`);
      ours.forEach((h, i) => {
        const diff = Math.abs(h.score - theirs[i]![1]);
        assert.ok(diff < 1e-4, `${q.qid} rank ${i + 1}: ours ${h.score} lucene ${theirs[i]![1]}`);
        maxDiff = Math.max(maxDiff, diff);
        if (Math.fround(theirs[i]![1]) === h.score) exact++;
        if (i > 0 && ours[i - 1]!.score === h.score) ties++;
        compared++;
      });
    }
    assert.ok(compared > 10 * k, `compared only ${compared} scores`);
    assert.ok(ties > 2 * k, `only ${ties} tied scores: the tie-break is not exercised`);
    if (blockSize < 128) assert.ok(searcher.stats!.windowsSkipped > 0, "pruning skipped no window");
    // Java prints the shortest decimal that round-trips a float: fround() recovers Lucene's float.
    t.diagnostic(`${compared} scores compared, ${exact} bit-identical float32, ${ties} ties, max |diff| ${maxDiff}`);
  });
}
