/**
 * Lucene 8.8.1's StandardTokenizer grammar (UAX#29 word boundaries as Lucene's JFlex grammar
 * states them), written over the character classes of ./wordbreak-classes.ts.
 *
 * The scanner takes, at each position, the longest text that any rule matches; on a tie the earlier
 * rule wins (it only decides the token type). The last rule matches any one code point and emits
 * nothing, which is how spaces, punctuation and symbols are dropped. In UAX#29 terms:
 *
 *   x*      = x followed by any Extend / Format / ZWJ characters (WB4), written `ex(x)` below;
 *   emoji   = an emoji element, then more elements each after a ZWJ, or tag characters closed by U+E007F;
 *             an element is [ZWJ*] emoji [U+FE0F], or [[ZWJ*] modifier-base] skin-tone-modifier
 *             (TR#51 emoji_sequence, Unicode 11.0; the Extend run after an emoji excludes U+FE0E and
 *             U+FE0F, so U+FE0E ends the sequence and only one U+FE0F counts);
 *           | keycap base [0-9#*] [U+FE0F] U+20E3  |  two regional indicators;
 *   number  = digit runs joined by one MidNum / MidNumLet / ' (WB11/12) or by ExtendNumLet (WB13a/b);
 *   hangul+, katakana+ (for the token type only: both are also words);
 *   word    = [ExtendNumLet*] (katakana run | (hebrew-quote | number | letters)+) ..., where letters are
 *             joined by one MidLetter / MidNumLet / ' (WB6/7), letters and digits join (WB9/10),
 *             a Hebrew letter keeps a following ' (WB7a) or joins across " (WB7b/c), and ExtendNumLet
 *             joins anything (WB13a/b); katakana and letters join only through ExtendNumLet;
 *   complex-context+ (Thai, Lao, Khmer, Myanmar, ...: one token per run, not per word);
 *   one Han ideograph; one Hiragana character; any other code point (dropped).
 *
 * Tokens are capped by the scanner's 255-character buffer (./wordbreak.ts), not by the grammar.
 */
import { alt, compileDfa, opt, plus, seq, set, star, type Dfa, type Re } from "./dfa.ts";
import { WB, WB_COUNT, type TokenType } from "./wordbreak-classes.ts";

/** Extend, Format and ZWJ (WB4) in all their classes. */
const ATTACHED = [WB.Extend, WB.Zwj, WB.Vs15, WB.Vs16, WB.Keycap, WB.TagSpec, WB.TagTerm, WB.ComplexContextExtend];
/** What an emoji absorbs after it: WB4's characters except the presentation selectors. */
const EMOJI_ATTACHED = ATTACHED.filter((c) => c !== WB.Vs15 && c !== WB.Vs16);

const ex = (...classes: WB[]): Re => seq(set(...classes), star(set(...ATTACHED)));

// Emoji
const emojiTail = star(set(...EMOJI_ATTACHED));
const zwjs = star(set(WB.Zwj));
const emojiElement = alt(
  seq(zwjs, set(WB.Emoji, WB.EmojiModifierBase, WB.ALetterEmoji), emojiTail, opt(set(WB.Vs16))),
  seq(opt(seq(zwjs, set(WB.EmojiModifierBase), emojiTail)), set(WB.EmojiModifier), emojiTail),
);
const emoji = alt(
  seq(emojiElement, alt(star(seq(set(WB.Zwj), emojiElement)), seq(plus(set(WB.TagSpec)), set(WB.TagTerm)))),
  seq(set(WB.KeycapBase, WB.AsciiDigit), emojiTail, opt(set(WB.Vs16)), set(WB.Keycap), emojiTail),
  seq(ex(WB.RegionalIndicator), ex(WB.RegionalIndicator)),
);

// Words and numbers
const extendNumLet = ex(WB.ExtendNumLet);
const digit = ex(WB.Numeric, WB.AsciiDigit);
const letter = ex(WB.ALetter, WB.HebrewLetter, WB.Hangul, WB.ALetterEmoji);
const katakana = ex(WB.Katakana);
const midNum = ex(WB.MidNum, WB.MidNumLet, WB.SingleQuote);
const midLetter = ex(WB.MidLetter, WB.MidNumLet, WB.SingleQuote);
const hebrew = ex(WB.HebrewLetter);

const digits = seq(digit, star(seq(alt(star(extendNumLet), midNum), digit)));
const number = seq(star(extendNumLet), digits, star(extendNumLet));
const letters = seq(letter, star(seq(alt(star(extendNumLet), midLetter), letter)));
const hebrewQuote = seq(hebrew, alt(ex(WB.SingleQuote), seq(ex(WB.DoubleQuote), hebrew)));
const katakanaRun = seq(katakana, star(seq(star(extendNumLet), katakana)));
const wordBody = alt(katakanaRun, plus(alt(hebrewQuote, digits, letters)));
const word = seq(star(extendNumLet), wordBody, star(seq(plus(extendNumLet), wordBody)), star(extendNumLet));

const ALL = Array.from({ length: WB_COUNT }, (_, c) => c as WB);

/** The rules in Lucene's order with the token type each emits (null: matched and dropped). */
export const RULES: readonly { readonly name: string; readonly re: Re; readonly type: TokenType | null }[] = [
  { name: "emoji", re: emoji, type: 7 },
  { name: "number", re: number, type: 1 },
  { name: "hangul", re: plus(ex(WB.Hangul)), type: 6 },
  { name: "katakana", re: plus(katakana), type: 5 },
  { name: "word", re: word, type: 0 },
  { name: "complex-context", re: plus(ex(WB.ComplexContext, WB.ComplexContextExtend)), type: 2 },
  { name: "ideograph", re: ex(WB.Han), type: 3 },
  { name: "hiragana", re: ex(WB.Hiragana), type: 4 },
  { name: "other", re: set(...ALL), type: null },
];

/** The scanner's tables: the DFA of RULES, and per state the token type it emits (-1: the dropping rule, -2: none). */
export function compileGrammar(): { dfa: Dfa; stateType: Int8Array } {
  const dfa = compileDfa(
    RULES.map((r) => r.re),
    WB_COUNT,
  );
  const stateType = Int8Array.from(dfa.accept, (rule) => (rule < 0 ? -2 : (RULES[rule]!.type ?? -1)));
  return { dfa, stateType };
}
