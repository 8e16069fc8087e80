// StandardTokenizer equivalent without the peer: the DFA compiler, the generated class table, the
// probes' power to tell classes apart, and exact typed tokens for emoji sequences, scripts, numbers
// and the 255-unit buffer edge (every expectation here was also produced by Lucene 8.8.1 through
// test/peers/lucene; test/sparse/wordbreak-parity.test.ts re-checks them live).
import { test } from "node:test";
import assert from "node:assert/strict";
import { alt, compileDfa, opt, plus, seq, set, star, type Dfa } from "../../steps/sparse/dfa.ts";
import { REPRESENTATIVES, WB, WB_COUNT, WB_NAMES } from "../../steps/sparse/wordbreak-classes.ts";
import { tokenize, tokenizeTyped, wordBreakClass } from "../../steps/sparse/wordbreak.ts";
import { PROBES } from "../peers/lucene/probes.ts";
import { signatureOf } from "./sweep-runs.ts";

/** Longest match of a DFA from the start of `symbols`: [length, rule] or null. */
function longest(dfa: Dfa, symbols: readonly number[]): [number, number] | null {
  let state = dfa.start;
  let best: [number, number] | null = null;
  for (let i = 0; i < symbols.length; i++) {
    state = dfa.next[state * dfa.symbols + symbols[i]!]!;
    if (state === 0) break;
    if (dfa.accept[state]! >= 0) best = [i + 1, dfa.accept[state]!];
  }
  return best;
}

test("DFA compiler: longest match wins, then the earlier rule", () => {
  // rule 0: a b* ; rule 1: (a | c)+ ; rule 2: a b c? d
  const dfa = compileDfa([seq(set(0), star(set(1))), plus(set(0, 2)), seq(set(0), set(1), opt(set(2)), set(3))], 4);
  assert.deepEqual(longest(dfa, [0]), [1, 0]); // "a": rules 0 and 1 tie, rule 0 is first
  assert.deepEqual(longest(dfa, [0, 0, 2]), [3, 1]);
  assert.deepEqual(longest(dfa, [0, 1, 1]), [3, 0]);
  assert.deepEqual(longest(dfa, [0, 1, 2, 3]), [4, 2]); // longer than rule 0's "ab"
  assert.deepEqual(longest(dfa, [0, 1, 2]), [2, 0]); // "abc" is no match: back to "ab"
  assert.equal(longest(dfa, [3]), null);
  assert.equal(dfa.next.length, dfa.accept.length * 4);
  assert.throws(() => set(32), /outside 0\.\.31/);
  assert.deepEqual(longest(compileDfa([alt(seq(), set(1))], 2), [1]), [1, 0]);
});

test("generated table: Unicode 9.0 letters, emoji 11.0 properties, every class present", () => {
  const counts = new Array<number>(WB_COUNT).fill(0);
  for (let cp = 0; cp <= 0x10ffff; cp++) counts[wordBreakClass(cp)]!++;
  assert.equal(counts[WB.Other], 996674);
  assert.equal(counts[WB.Han], 81732);
  assert.ok(counts.every((n) => n > 0));
  REPRESENTATIVES.forEach((cp, cls) => assert.equal(wordBreakClass(cp), cls, WB_NAMES[cls]));
  const expect: [number, WB][] = [
    [0x08b6, WB.ALetter], // Arabic letter added in Unicode 9.0
    [0x0860, WB.Other], // Syriac letter added in 10.0: Lucene 8 drops it
    [0x1e900, WB.ALetter], // Adlam (9.0)
    [0x10d00, WB.Other], // Hanifi Rohingya (11.0)
    [0x1f9b5, WB.EmojiModifierBase], // leg: modifier base in emoji 11.0
    [0x1f90c, WB.Emoji], // pinched fingers (emoji 13): an emoji, not a modifier base
    [0x1f9ff, WB.Emoji], // Extended_Pictographic covers unassigned code points in emoji blocks
    [0x3005, WB.ALetter], // 々 is a letter, though Han script
    [0x3006, WB.Other], // 〆
    [0x1f200, WB.Hiragana],
    [0x2122, WB.Emoji], // ™
    [0x2605, WB.Emoji], // ★ (issue 12's example)
    [0xd800, WB.Other],
    [0xdfff, WB.Other],
    [0xe0001, WB.Extend],
    [0xff10, WB.Numeric], // fullwidth digits
    [0x200b, WB.Other], // zero width space
    [0x00ad, WB.Extend], // soft hyphen (Format)
  ];
  for (const [cp, cls] of expect) assert.equal(WB_NAMES[wordBreakClass(cp)], WB_NAMES[cls], `U+${cp.toString(16)}`);
});

test("the probes tell every pair of classes apart, and each probe but the first is needed", () => {
  const fill = (p: string, cp: number): string => signatureOf(p.split("\u0000").join(String.fromCodePoint(cp)));
  const table = PROBES.map((p) => REPRESENTATIVES.map((cp) => fill(p, cp)));
  const separated = (a: number, b: number, probes: readonly number[]): boolean => probes.some((i) => table[i]![a] !== table[i]![b]);
  const all = PROBES.map((_, i) => i);
  for (let a = 0; a < WB_COUNT; a++) for (let b = a + 1; b < WB_COUNT; b++) assert.ok(separated(a, b, all), `${WB_NAMES[a]} / ${WB_NAMES[b]}`);
  for (let i = 1; i < PROBES.length; i++) {
    const others = all.filter((j) => j !== i);
    let needed = false;
    for (let a = 0; a < WB_COUNT && !needed; a++) for (let b = a + 1; b < WB_COUNT && !needed; b++) needed = !separated(a, b, others);
    assert.ok(needed, `probe ${JSON.stringify(PROBES[i])} is redundant`);
  }
});

const typed = (s: string): string[] => tokenizeTyped(s).map((t) => (t.type === 0 ? t.token : `${t.token}/${t.type}`));

test("emoji: modifiers, ZWJ sequences, flags, keycaps, variation selectors, tags (type 7 = <EMOJI>)", () => {
  assert.deepEqual(typed("👍🏽 👍🏽👍🏿 🏽 a🏽 ©🏽 👍\uFE0F🏽 👍\u0301🏽 🦵🏽 🤌🏽"), [
    "👍🏽/7", "👍🏽/7", "👍🏿/7", "🏽/7", "a", "🏽/7", "©/7", "🏽/7", "👍\uFE0F/7", "🏽/7", "👍\u0301🏽/7", "🦵🏽/7", "🤌/7", "🏽/7",
  ]);
  assert.deepEqual(typed("👨‍👩‍👧‍👦 🏳️‍🌈 ‍😀 😀‍‍😀 a‍😀 ℹ‍😀 ℹ️ Ⓜ️a"), [
    "👨‍👩‍👧‍👦/7", "🏳️‍🌈/7", "‍😀/7", "😀‍‍😀/7", "a‍", "😀/7", "ℹ‍😀/7", "ℹ️/7", "Ⓜ️a",
  ]);
  assert.deepEqual(typed("🇺🇸 🇺🇸🇬🇧 🇺🇸🇬 🇺 a🇺🇸b"), ["🇺🇸/7", "🇺🇸/7", "🇬🇧/7", "🇺🇸/7", "a", "🇺🇸/7", "b"]);
  assert.deepEqual(typed("#️⃣ #⃣ 1️⃣ 1⃣2 #︎⃣ 12⃣ 1︎⃣ ⃣"), ["#️⃣/7", "#⃣/7", "1️⃣/7", "1⃣2/1", "12⃣/1", "1︎⃣/1"]);
  assert.deepEqual(typed("©️ ©︎ ★ ☕️ a︎ 😀️️ 😀︎"), ["©️/7", "©/7", "★/7", "☕️/7", "a︎", "😀️/7", "😀/7"]);
  assert.deepEqual(typed("🏴󠁧󠁢󠁥󠁮󠁧󠁿 a󠁡b"), ["🏴󠁧󠁢󠁥󠁮󠁧󠁿/7", "a󠁡b"]);
});

test("scripts: Hangul, complex context runs, kana, ideographs (types 2-6)", () => {
  assert.deepEqual(typed("한국어 ㄱㄴ 한국a1 ﾡﾢ"), ["한국어/6", "ㄱㄴ/6", "한국a1", "ﾡﾢ/6"]);
  assert.deepEqual(typed("ภาษาไทย ๑๒๓ ភាសាខ្មែរ ไทยabc ั"), ["ภาษาไทย/2", "๑๒๓/1", "ភាសាខ្មែរ/2", "ไทย/2", "abc", "ั/2"]);
  assert.deepEqual(typed("ひらカタ漢字 ｶﾀｶﾅ ー 々 〆 カ_カ カa 𠀀 ㋐"), [
    "ひ/4", "ら/4", "カタ/5", "漢/3", "字/3", "ｶﾀｶﾅ/5", "ー/5", "々", "カ_カ", "カ/5", "a", "𠀀/3", "㋐/5",
  ]);
  assert.deepEqual(typed("צה\"ל ש' ש'1 א\" א'א"), ["צה\"ל", "ש'", "ש'1", "א", "א'א"]);
  assert.deepEqual(typed("\u0860 \u08B6 \u{10D00} \u{1E900}"), ["\u08B6", "\u{1E900}"]);
});

test("numbers with separators, URLs and e-mail addresses (split: UAX#29 has no URL rule)", () => {
  assert.deepEqual(typed("1,000.50 1.2.3 3,14 1'000 ١٬٢٣٤ 12:30 1_000 1..2 a1.b v1.2b １,０"), [
    "1,000.50/1", "1.2.3/1", "3,14/1", "1'000/1", "١٬٢٣٤/1", "12/1", "30/1", "1_000/1", "1/1", "2/1", "a1", "b", "v1.2b", "１,０/1",
  ]);
  assert.deepEqual(tokenize("https://www.example.com/to-page?x=1#frag foo.bar@example.co.uk"), [
    "https", "www.example.com", "to", "page", "x", "1", "frag", "foo.bar", "example.co.uk",
  ]);
  assert.deepEqual(tokenize("a\r\nb a\u00ADb a\u200Bb \u0301a"), ["a", "b", "a\u00ADb", "a", "b", "a"]);
});

test("the 255-unit buffer: long words are cut at their longest match inside it", () => {
  const lengths = (s: string): number[] => tokenize(s).map((t) => t.length);
  const x254 = "x".repeat(254);
  assert.deepEqual(lengths("x".repeat(600)), [255, 255, 90]);
  assert.deepEqual(lengths(x254 + ".b"), [254, 1]); // "x…x.b" would be 256 units
  assert.deepEqual(lengths(x254 + "\u{1D4B3}"), [254, 2]); // the window stops before a surrogate pair
  assert.deepEqual(lengths(x254 + "\u0301\u0301\u0301"), [255]); // the cut-off marks are dropped
  assert.deepEqual(lengths("1".repeat(300)), [255, 45]);
  assert.deepEqual(lengths("x".repeat(253) + "😀"), [253, 2]);
});
