// Analyzer tests: StandardTokenizer (UAX#29) output, possessives, lower-casing, stop words, stemming.
// Expected arrays were produced by Lucene 8.8.1 (test/peers/lucene/LuceneBm25.java analyze tokens|anserini);
// the live-peer tests at the end re-check them and a seeded fuzz corpus when Java and Lucene are installed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { analyze, analyzeToken, ENGLISH_STOP_WORDS, javaLowerCase, stripPossessive } from "../../steps/sparse/analyzer.ts";
import { tokenize, MAX_TOKEN_LENGTH } from "../../steps/sparse/wordbreak.ts";
import { luceneAnalyze, luceneStopwords, peerOrSkip } from "../peers/lucene/peer.ts";

const TOKEN_CASES: readonly (readonly [string, readonly string[]])[] = [
  ["The quick brown fox's jumps; 3.5 1,000 don't", ["The", "quick", "brown", "fox's", "jumps", "3.5", "1,000", "don't"]],
  ["O'Neil's foo_bar a:b U.S.A. e-mail foo@bar.com", ["O'Neil's", "foo_bar", "a:b", "U.S.A", "e", "mail", "foo", "bar.com"]],
  ["東京都 ひらがな カタカナ", ["東", "京", "都", "ひ", "ら", "が", "な", "カタカナ"]],
  ["ผู้ใหญ่ 😀 ☺ © 👍🏽 🇺🇸", ["ผู้ใหญ่", "😀", "☺", "©", "👍🏽", "🇺🇸"]],
  ["___ _foo foo_ 3_000 1.2.3 1..2 a..b", ["_foo", "foo_", "3_000", "1.2.3", "1", "2", "a", "b"]],
  ["it's rock'n'roll 'quoted' \"dq\"", ["it's", "rock'n'roll", "quoted", "dq"]],
  ["שלום צה\"ל", ["שלום", "צה\"ל"]],
  ["10:30 2022-01-01 $100.00 50%", ["10", "30", "2022", "01", "01", "100.00", "50"]],
  ["naïve café A\u0301bc", ["naïve", "café", "A\u0301bc"]],
];

test("StandardTokenizer-equivalent word breaks on tricky texts", () => {
  for (const [text, expected] of TOKEN_CASES) assert.deepEqual(tokenize(text), expected, text);
});

test("tokens longer than 255 UTF-16 units are cut into 255-unit pieces", () => {
  const toks = tokenize("x".repeat(600));
  assert.deepEqual(toks.map((t) => t.length), [MAX_TOKEN_LENGTH, MAX_TOKEN_LENGTH, 90]);
});

test("possessive filter runs before lower-casing and accepts ', ’ and ＇", () => {
  assert.equal(stripPossessive("Fox'S"), "Fox");
  assert.equal(stripPossessive("O’Neil’s"), "O’Neil");
  assert.equal(stripPossessive("it＇s"), "it");
  assert.equal(stripPossessive("s"), "s");
  assert.equal(stripPossessive("bass"), "bass");
});

test("lower-casing is Java's per-code-point simple mapping", () => {
  assert.equal(javaLowerCase("İSTANBUL"), "istanbul"); // JS toLowerCase would give "i̇stanbul"
  assert.equal(javaLowerCase("ΣΟΦΟΣ"), "σοφοσ"); // no final-sigma context rule
  assert.equal(javaLowerCase("ÉCOLE"), "école");
});

test("the 33 English stop words are dropped after lower-casing", () => {
  assert.equal(ENGLISH_STOP_WORDS.size, 33);
  assert.equal(analyzeToken("THE"), null);
  assert.equal(analyzeToken("Will"), null);
  assert.deepEqual(analyze("To be or not to be, that is the question"), ["question"]);
});

test("full chain: possessives, stop words, Porter stems", () => {
  assert.deepEqual(analyze("The Beatles' album, Abbey Road (1969), sold 31,000,000 copies; Lennon's songs."), [
    "beatl", "album", "abbei", "road", "1969", "sold", "31,000,000", "copi", "lennon", "song",
  ]);
  assert.deepEqual(analyze("What are the running times of TV episodes?"), ["what", "run", "time", "tv", "episod"]);
  assert.deepEqual(analyze(""), []);
});

test("stop word set equals Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET (live peer)", (t) => {
  const classpath = peerOrSkip(t);
  if (classpath === null) return;
  assert.deepEqual([...ENGLISH_STOP_WORDS].sort(), luceneStopwords(classpath));
});

test("expected token and analyzer outputs above equal Lucene's (live peer)", (t) => {
  const classpath = peerOrSkip(t);
  if (classpath === null) return;
  const texts = TOKEN_CASES.map(([s]) => s);
  assert.deepEqual(luceneAnalyze(classpath, "tokens", texts), texts.map(tokenize));
  const sentences = [
    "The Beatles' album, Abbey Road (1969), sold 31,000,000 copies; Lennon's songs.",
    "What are the running times of TV episodes?",
    "İSTANBUL ΣΟΦΟΣ Fox'S O’Neil’s it＇s",
    "x".repeat(600),
  ];
  assert.deepEqual(luceneAnalyze(classpath, "anserini", sentences), sentences.map(analyze));
});

test("seeded fuzz: English-like texts with emoji tokenize exactly like Lucene (live peer)", (t) => {
  const classpath = peerOrSkip(t);
  if (classpath === null) return;
  // Letters, digits, every UAX#29 joiner, accents, CJK, Hebrew, Thai, Arabic digits, and emoji with
  // modifiers, ZWJ, keycaps and variation selectors (wordbreak-parity.test.ts sweeps far more).
  const alphabet = [..."aZ9 .,'_:;\"-é\u0301\u00AD東ひカאשก١’·@#\t\nexy12  😀👍🏽\u200D\uFE0F\u20E3🇺©★"];
  let s = 42;
  const rnd = (): number => ((s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff), s / 0x80000000);
  const texts = Array.from({ length: 2000 }, () =>
    Array.from({ length: 1 + Math.floor(rnd() * 16) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join(""),
  );
  const lucene = luceneAnalyze(classpath, "tokens", texts);
  const wrong = texts.flatMap((x, i) => (JSON.stringify(tokenize(x)) === JSON.stringify(lucene[i]) ? [] : [x]));
  assert.deepEqual(wrong, []);
});
