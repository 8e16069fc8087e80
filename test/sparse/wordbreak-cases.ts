/**
 * Hand-picked sequences for the StandardTokenizer parity tests: the live-peer test compares them
 * with Lucene 8.8.1, and test/sparse/wordbreak.test.ts pins the expected tokens of many of them.
 */

const x254 = "x".repeat(254);

export const SEQUENCES: readonly string[] = [
  // emoji with skin-tone modifiers (emoji 11.0 decides what is a modifier base)
  "👍🏽 👍🏽👍🏿 🏽 a🏽 ©🏽 👍\uFE0F🏽 👍\u0301🏽 🦵🏽 🤌🏽 🏽🏽",
  // ZWJ sequences, leading and trailing ZWJs, letters that are emoji
  "👨‍👩‍👧‍👦 👩‍💻 🏳️‍🌈 👩🏽‍🚒 ‍😀 😀‍ 😀‍‍😀 a‍😀 ℹ‍😀 ℹ️ Ⓜ️a 🅰🅱",
  // regional indicators: pairs are flags, a lone one is dropped
  "🇺🇸 🇺🇸🇬🇧 🇺🇸🇬 🇺 a🇺🇸b 🇺\u0301🇸",
  // keycaps, with and without U+FE0F, and U+FE0E
  "#️⃣ #⃣ 1️⃣ 1⃣2 *️⃣ #︎⃣ 12⃣ 1︎⃣ ⃣",
  // variation selectors on text-default and emoji-default characters
  "©️ ©︎ ™️ ☺️ ☺︎ ★ ☕️ a︎ 1️ 😀️️ 😀︎",
  // tag sequences (England, Scotland), tags elsewhere
  "🏴󠁧󠁢󠁥󠁮󠁧󠁿 🏴󠁧󠁢󠁳󠁣󠁴󠁿 😀󠁡 a󠁡b 😀️󠁡󠁿",
  // Hangul syllables, jamo, compatibility jamo, Hangul with Latin
  "한국어 텍스트 각 각 ㄱㄴ 한국a1 ﾡﾢ",
  // Thai, Lao, Khmer, Myanmar (one token per run), with Latin and digits
  "ภาษาไทย ๑๒๓ ພາສາລາວ ភាសាខ្មែរ မြန်မာဘာသာ ไทยabc ั",
  // Hiragana, Katakana (also halfwidth), ideographs (also extension B), iteration marks
  "ひらがなカタカナ漢字 ｶﾀｶﾅ ー 々 〆 カ_カ カa a_カ 𠀀𠀁 ゝゞ ㋐",
  // numbers with separators
  "1,000.50 1.2.3 3,14 1'000 ١٬٢٣٤ 12:30 1_000 $1,000 1, ,1 1..2 1,a a1.b v1.2b ０１２ １,０",
  // URLs and e-mail addresses are split (UAX#29 has no URL rule; ClassicTokenizer would keep them)
  "https://www.example.com/path/to-page?x=1&y=2#frag foo.bar@example.co.uk www.example.com http://example.com:8080/a_b",
  // Hebrew quotes (WB7a-c)
  "צה\"ל ש' ש'1 א\" \"א א'א",
  // controls, format characters, line separators
  "a\r\nb a\u2028b a\u00ADb a\u200Bb a\u200Cb a\u0301\u0301b \u0301a a\u2060b",
  // letters assigned after Unicode 9.0 are dropped; Unicode 9.0 letters are not
  "\u0860 \u08B6 \u{1E900}\u{1E901} \u{10D00} \u{1F97A} \u{1F9B5}\u{1F3FD} \u{1F90C}\u{1F3FD}",
  // the 255-unit buffer: long words cut at their longest match inside it
  x254 + ".b",
  x254 + "'s",
  "x".repeat(253) + "😀",
  x254 + "\u{1D4B3}",
  x254 + "\u0301\u0301\u0301",
  "1".repeat(300),
  "😀".repeat(200),
  "🇺🇸".repeat(70),
  "a".repeat(600) + " b",
];

/** Real-format passages and questions with symbols and emoji, through the whole Anserini chain. */
export const SENTENCES: readonly string[] = [
  "I ★ Zürich's café ☕️ — a 5★ hotel, +41 (0)44 123 45 67, from CHF 1,000.50; see https://example.com/a-b?x=1 or mail info@hotel.ch 👍🏽🇨🇭",
  "What did the Beatles' 'Abbey Road' (1969) sell? ©️ EMI™ — ♪♫ 31,000,000 copies!! 🎸🎶",
  "Q: who wrote 東京物語 (Tokyo Story, 1953)? A: 小津安二郎 & 野田高梧 — see ｶﾀｶﾅ / ひらがな notes…",
  "The café’s menu: crème brûlée, naïve ÆSIR, İSTANBUL ΣΟΦΟΣ, ǅ, Straße, ﬁnance, ℌ𝔢𝔩𝔩𝔬 𝒳",
  "Rock'n'roll fans' 2nd album #1 ★★★★☆ (4/5) — 10% off! 👨‍👩‍👧‍👦 family tickets; ⚽️ 2:1 🏳️‍🌈",
  "ภาษาไทย and ភាសាខ្មែរ in one passage; Hebrew צה\"ל; Arabic ١٬٢٣٤ and ٣٫١٤; emoji 🤌🏽 vs 🦵🏽",
];
