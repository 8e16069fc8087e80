/**
 * Probe contexts for the code-point sweeps: U+0000 (SWEEP_PLACEHOLDER) marks where the swept code
 * point goes; the filled probes are joined by a space into one text per code point. Together they
 * tell the 30 classes of steps/sparse/wordbreak-classes.ts apart (a token's type counts too: Han and
 * Hiragana, Hangul and other letters, ASCII and other digits differ only in type), so a code point
 * whose class were wrong in the table would tokenize differently from Lucene in at least one probe.
 * Each probe but the first is needed for that (checked by test/sparse/wordbreak-tables.test.ts);
 * the texts average 5 code points, which keeps the sweep of 1.1M code points fast.
 * scripts/gen-wordbreak-table.ts checks that property on the representatives; the parity test sweeps
 * every code point through these same probes.
 */
const X = "\u0000";

export const PROBES: readonly string[] = [
  X, // token alone, and its type
  X + X, // one token per character (Han, Hiragana, emoji) or runs (letters, Katakana, complex context, flag pairs)
  `a${X}`, // attaches to a letter (Extend, Vs15, ...) or not (' . :)
  `a${X}a`, // joins letters (MidLetter, MidNumLet, ', ExtendNumLet, Extend)
  `1${X}1`, // joins digits (MidNum, MidNumLet, ')
  `\u05D0${X}`, // a Hebrew letter keeps a following ' (WB7a)
  `\u05D0${X}\u05D0`, // " joins Hebrew letters (WB7b/c)
  `${X}"\u05D0`, // ... only after a Hebrew letter
  `${X}a`, // a leading ExtendNumLet belongs to the word
  `${X}\u{1F600}`, // a leading ZWJ belongs to the emoji
  `\u{1F44D}${X}\u{1F3FD}`, // only Extend (not U+FE0F) sits between a modifier base and its modifier; bases take one
  `#${X}`, // U+20E3 completes a keycap
  `${X}\u20E3`, // keycap bases (digits typed <EMOJI>, # and *)
  `\u{1F600}\uFE0F${X}\u{E007F}`, // tag characters after U+FE0F
  `\u{1F600}\uFE0F\u{E0061}${X}`, // the cancel tag closes a tag sequence
];
