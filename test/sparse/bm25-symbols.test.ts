// BM25 on web passages with symbols and emoji (QReCC-style ids and text): Lucene 8.8.1 indexes ★,
// 👍🏽, 🇨🇭 ... as terms and drops letters assigned after Unicode 9.0, so the term counts, avgdl and
// every score depend on the tokenizer's Unicode tables. Expected numbers were produced by Lucene
// 8.8.1 through test/peers/lucene (search mode, k1 = 0.82, b = 0.68; Java prints the shortest
// decimal that round-trips the float). Before cspipe followed Lucene's tables (ANALYZER_ID 1) it
// counted 95 terms (avgdl 15.8333) and scored q4, whose terms it analyzed correctly, 3.249365
// instead of 3.356215: one symbol anywhere in a collection moves every score.
import { test } from "node:test";
import assert from "node:assert/strict";
import { analyze } from "../../steps/sparse/analyzer.ts";
import { buildIndexSync } from "../../steps/sparse/index.ts";
import { Searcher } from "../../steps/sparse/search.ts";

const docs = [
  { id: "http://example.com/hotel_p0", text: "Hotel Zürich ★★★★☆ (4.2/5) — rated 5★ by guests 👍🏽! Rooms from CHF 180 → book now ✈️ 🇨🇭" },
  { id: "http://example.com/hotel_p1", text: "© 2019 Hotel Zürich AG™. All rights reserved. Contact: info@hotel.ch ☎ +41 44 123 45 67" },
  { id: "http://example.com/recipe_p0", text: "Crème brûlée 🍮 recipe: 4 eggs 🥚, 500 ml cream, ½ cup sugar ⅓ vanilla — bake 45′ at 150 °C ✔" },
  { id: "http://example.com/music_p0", text: "The Beatles' ♪ Abbey Road ♫ (1969) sold 31,000,000 copies; ranked #1 ★ in the UK 🇬🇧 and US 🇺🇸." },
  { id: "http://example.com/music_p1", text: "Fans 👨‍👩‍👧‍👦 loved the album ❤️ — 10/10 ⭐⭐⭐⭐⭐; critics gave ★★★ (3/5) 🤌🏽 🥺" },
  { id: "http://example.com/lang_p0", text: "Syriac ࡠࡡ and Hanifi Rohingya 𐴀𐴁 letters next to ภาษาไทย and 東京 and 한국어 text" },
];

const LUCENE: Record<string, [string, number][]> = {
  "which hotel is rated 5★ in Zürich?": [["hotel_p0", 3.1503925], ["hotel_p1", 1.1216317], ["music_p1", 1.0490743], ["music_p0", 0.39112118]],
  "how many ★ did critics give the album?": [["music_p1", 2.0938377], ["hotel_p0", 0.5842914], ["music_p0", 0.39112118]],
  "Beatles Abbey Road copies ★": [["music_p0", 3.8680203], ["hotel_p0", 0.5842914], ["music_p1", 0.5246633]],
  "crème brûlée recipe 🍮": [["recipe_p0", 3.356215]],
};

test("symbols and emoji are terms; letters newer than Unicode 9.0 are not (Lucene's lengths)", () => {
  assert.deepEqual(docs.map((d) => analyze(d.text).length), [21, 18, 18, 16, 22, 10]);
  assert.deepEqual(analyze(docs[4]!.text).slice(0, 6), ["fan", "👨‍👩‍👧‍👦", "love", "album", "❤️", "10"]);
  assert.deepEqual(analyze(docs[5]!.text), ["syriac", "hanifi", "rohingya", "letter", "next", "ภาษาไทย", "東", "京", "한국어", "text"]);
});

test("collection statistics and scores equal Lucene 8.8.1's (float32-identical)", () => {
  const index = buildIndexSync(docs);
  assert.equal(index.sumTotalTermFreq, 105);
  assert.equal(index.docCount, 6);
  const searcher = new Searcher(index, { k1: 0.82, b: 0.68 });
  for (const [query, expected] of Object.entries(LUCENE)) {
    const hits = searcher.search(query, 6).map((h) => [h.pid.slice("http://example.com/".length), h.score]);
    assert.deepEqual(hits, expected.map(([id, score]) => [id, Math.fround(score)]), query);
  }
});
