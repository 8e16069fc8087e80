/**
 * Word tokenizer equivalent to Lucene 8's StandardTokenizer (UAX#29 word boundaries, JFlex grammar).
 *
 * Why not `Intl.Segmenter`: ICU's word segmenter uses dictionaries for CJK and Thai (Lucene emits one
 * token per Han ideograph / Hiragana character and one token per run of South-East-Asian letters),
 * does not mark emoji as word-like (Lucene 8 emits emoji tokens) and allocates an object per segment,
 * which is ~5-10x slower than this scanner on English text. See test/sparse/wordbreak.test.ts.
 *
 * What it does (per UAX#29 WB4-WB13b, then Lucene's token rules):
 *  - words: runs of ALetter / Hebrew_Letter / Numeric / Katakana / ExtendNumLet joined by the UAX#29
 *    rules (MidLetter `:` `·`, MidNumLet `.` `’`, Single_Quote `'` between letters, MidNum `,` `;`
 *    between digits, `_` anywhere inside), Extend/Format/ZWJ characters attach to the preceding char;
 *  - one token per Han ideograph and per Hiragana character;
 *  - one token per run of complex-context (Thai, Lao, Myanmar, Khmer, ...) characters;
 *  - emoji (Extended_Pictographic with its modifiers / ZWJ sequences, regional-indicator pairs);
 *  - everything else (spaces, punctuation, symbols) is dropped;
 *  - tokens longer than 255 UTF-16 units are cut into 255-unit pieces, as Lucene's scanner does.
 * Character classes come from JavaScript's Unicode property escapes (Node's ICU Unicode version), so
 * characters added after Lucene's Unicode version may be classified differently: an accepted gap.
 */

export const MAX_TOKEN_LENGTH = 255;

/** UAX#29 Word_Break classes, plus Lucene's token classes for characters UAX#29 calls Other. */
export const enum WB {
  Other = 0,
  Newline = 1,
  Extend = 2, // Extend, Format and ZWJ: attach to the preceding character (WB4)
  RegionalIndicator = 3,
  Katakana = 4,
  HebrewLetter = 5,
  ALetter = 6,
  SingleQuote = 7,
  DoubleQuote = 8,
  MidNumLet = 9,
  MidLetter = 10,
  MidNum = 11,
  Numeric = 12,
  ExtendNumLet = 13,
  Han = 14,
  Hiragana = 15,
  ComplexContext = 16,
  Emoji = 17,
  Zwj = 18,
  /** Skin-tone modifiers: part of a preceding emoji, otherwise an emoji token of their own (Lucene's Unicode 9 E_Modifier). */
  EmojiModifier = 19,
}

const MID_NUM_LET = [0x2e, 0x2018, 0x2019, 0x2024, 0xfe52, 0xff07, 0xff0e];
const MID_LETTER = [0x3a, 0xb7, 0x387, 0x55f, 0x5f4, 0x2027, 0xfe13, 0xfe55, 0xff1a];
const MID_NUM = [0x2c, 0x3b, 0x37e, 0x589, 0x60c, 0x60d, 0x66c, 0x7f8, 0x2044, 0xfe10, 0xfe14, 0xfe50, 0xfe54, 0xff0c, 0xff1b];
const KATAKANA_EXTRA = [0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x309b, 0x309c, 0x30a0, 0x30fc, 0xff70];
const ALETTER_EXTRA = [0x2c2, 0x2c3, 0x2c4, 0x2c5, 0x2d2, 0x2d3, 0x2d4, 0x2d5, 0x2d6, 0x2d7, 0x2de, 0x2df, 0x2ed, 0x5f3, 0xa720, 0xa721, 0xa789, 0xa78a, 0xab5b];

const RE_EXTEND = /^[\p{Grapheme_Extend}\p{Mc}]$/u;
const RE_FORMAT = /^\p{Cf}$/u;
const RE_KATAKANA = /^\p{Script=Katakana}$/u;
const RE_HEBREW_LETTER = /^(?=\p{Script=Hebrew})\p{Lo}$/u;
const RE_HAN = /^\p{Script=Han}$/u;
const RE_HIRAGANA = /^\p{Script=Hiragana}$/u;
const RE_COMPLEX = /^[\p{Script=Thai}\p{Script=Lao}\p{Script=Myanmar}\p{Script=Khmer}\p{Script=Tai_Le}\p{Script=New_Tai_Lue}\p{Script=Tai_Tham}\p{Script=Tai_Viet}]$/u;
const RE_COMPLEX_LETTER = /^[\p{L}\p{M}\p{Nd}]$/u;
const RE_ALETTER = /^\p{Alphabetic}$/u;
const RE_IDEOGRAPHIC = /^\p{Ideographic}$/u;
const RE_NUMERIC = /^\p{Nd}$/u;
const RE_EXTEND_NUM_LET = /^\p{Pc}$/u;
const RE_MODIFIER_BASE = /^\p{Emoji_Modifier_Base}$/u;
const RE_EMOJI = /^\p{Extended_Pictographic}$/u;

/** Classifies one code point (slow path; results are cached by `wordBreakClass`). */
function classifySlow(cp: number): WB {
  if (cp === 0x0a || cp === 0x0b || cp === 0x0c || cp === 0x0d || cp === 0x85 || cp === 0x2028 || cp === 0x2029) return WB.Newline;
  if (cp === 0x200d) return WB.Zwj;
  if (cp === 0x27) return WB.SingleQuote;
  if (cp === 0x22) return WB.DoubleQuote;
  if (MID_NUM_LET.includes(cp)) return WB.MidNumLet;
  if (MID_LETTER.includes(cp)) return WB.MidLetter;
  if (MID_NUM.includes(cp)) return WB.MidNum;
  if (cp >= 0x1f1e6 && cp <= 0x1f1ff) return WB.RegionalIndicator;
  if (cp >= 0x1f3fb && cp <= 0x1f3ff) return WB.EmojiModifier;
  const ch = String.fromCodePoint(cp);
  if (RE_EXTEND.test(ch)) return WB.Extend;
  if (RE_FORMAT.test(ch)) return cp === 0x200b ? WB.Other : WB.Extend;
  if (RE_KATAKANA.test(ch) || KATAKANA_EXTRA.includes(cp)) return WB.Katakana;
  if (RE_HEBREW_LETTER.test(ch)) return WB.HebrewLetter;
  if (RE_HAN.test(ch)) return WB.Han;
  if (RE_HIRAGANA.test(ch)) return WB.Hiragana;
  if (RE_COMPLEX.test(ch) && RE_COMPLEX_LETTER.test(ch)) return WB.ComplexContext;
  if (RE_NUMERIC.test(ch)) return WB.Numeric;
  if ((RE_ALETTER.test(ch) && !RE_IDEOGRAPHIC.test(ch)) || ALETTER_EXTRA.includes(cp)) return WB.ALetter;
  if (RE_EXTEND_NUM_LET.test(ch) || cp === 0x202f) return WB.ExtendNumLet;
  if (RE_EMOJI.test(ch)) return WB.Emoji;
  return WB.Other;
}

// 0xff = not yet computed. The BMP table fills lazily (64 KiB); astral code points use a Map.
const bmp = new Uint8Array(0x10000).fill(0xff);
const astral = new Map<number, WB>();

export function wordBreakClass(cp: number): WB {
  if (cp < 0x10000) {
    let c = bmp[cp]!;
    if (c === 0xff) {
      c = classifySlow(cp);
      bmp[cp] = c;
    }
    return c as WB;
  }
  let c = astral.get(cp);
  if (c === undefined) {
    c = classifySlow(cp);
    astral.set(cp, c);
  }
  return c;
}

/** Classes of the 128 ASCII code points. */
const ASCII_CLASS = Uint8Array.from({ length: 128 }, (_, cp) => wordBreakClass(cp));

const isAHLetter = (c: WB): boolean => c === WB.ALetter || c === WB.HebrewLetter;
const isAttached = (c: WB): boolean => c === WB.Extend || c === WB.Zwj;
const startsWord = (c: WB): boolean =>
  c === WB.ALetter || c === WB.HebrewLetter || c === WB.Numeric || c === WB.Katakana || c === WB.ExtendNumLet;

/**
 * Scans `text` and calls `emit(start, end)` for every token (UTF-16 offsets, end exclusive).
 * Pure; the callback form avoids allocating arrays in the hot indexing loop.
 */
export function scanTokens(text: string, emit: (start: number, end: number) => void): void {
  const n = text.length;
  // Class of the code point at i and its width in UTF-16 units, without allocation.
  let cls = WB.Other as WB;
  let width = 1;
  const read = (i: number): void => {
    const u = text.charCodeAt(i);
    if (u >= 0xd800 && u <= 0xdbff && i + 1 < n) {
      const l = text.charCodeAt(i + 1);
      if (l >= 0xdc00 && l <= 0xdfff) {
        cls = wordBreakClass(((u - 0xd800) << 10) + (l - 0xdc00) + 0x10000);
        width = 2;
        return;
      }
    }
    width = 1;
    cls = u < 0x10000 ? (bmp[u] !== 0xff ? (bmp[u] as WB) : wordBreakClass(u)) : wordBreakClass(u);
  };
  /** Index after the Extend/Format/ZWJ characters that start at i. */
  const skipAttached = (i: number): number => {
    while (i < n) {
      read(i);
      if (!isAttached(cls)) break;
      i += width;
    }
    return i;
  };
  const emitCapped = (start: number, end: number): void => {
    while (end - start > MAX_TOKEN_LENGTH) {
      let cut = start + MAX_TOKEN_LENGTH;
      const u = text.charCodeAt(cut - 1);
      if (u >= 0xd800 && u <= 0xdbff) cut -= 1; // never split a surrogate pair
      emit(start, cut);
      start = cut;
    }
    if (end > start) emit(start, end);
  };

  let i = 0;
  while (i < n) {
    read(i);
    const c0 = cls;
    const start = i;
    if (startsWord(c0)) {
      let prev = c0;
      let end = skipAttached(i + width);
      let sawCore = c0 !== WB.ExtendNumLet;
      for (;;) {
        if (end >= n) break;
        // Fast path: an ASCII letter or digit after a letter or digit always joins (WB5, WB8-WB10).
        const u = text.charCodeAt(end);
        if (u < 0x80 && (prev === WB.ALetter || prev === WB.Numeric || prev === WB.HebrewLetter)) {
          const a = ASCII_CLASS[u]!;
          if (a === WB.ALetter || a === WB.Numeric) {
            prev = a;
            end++;
            continue;
          }
        }
        read(end);
        const c = cls;
        const w = width;
        if (isAttached(c)) {
          end = skipAttached(end); // WB4 after a fast-path character
          continue;
        }
        let join = false;
        let next = end + w;
        if (c === WB.ExtendNumLet) join = true; // WB13a
        else if (prev === WB.ExtendNumLet) join = c === WB.ALetter || c === WB.HebrewLetter || c === WB.Numeric || c === WB.Katakana; // WB13b
        else if (isAHLetter(prev) && (isAHLetter(c) || c === WB.Numeric)) join = true; // WB5, WB9
        else if (prev === WB.Numeric && (c === WB.Numeric || isAHLetter(c))) join = true; // WB8, WB10
        else if (prev === WB.Katakana && c === WB.Katakana) join = true; // WB13
        else if (c === WB.MidLetter || c === WB.MidNumLet || c === WB.SingleQuote || c === WB.MidNum || c === WB.DoubleQuote) {
          // WB6/7 (letters), WB11/12 (digits), WB7b/c (Hebrew "): join only if the right side continues.
          const after = skipAttached(next);
          if (after < n) {
            read(after);
            const r = cls;
            if (isAHLetter(prev) && isAHLetter(r) && (c === WB.MidLetter || c === WB.MidNumLet || c === WB.SingleQuote)) join = true;
            else if (prev === WB.Numeric && r === WB.Numeric && (c === WB.MidNum || c === WB.MidNumLet || c === WB.SingleQuote)) join = true;
            else if (prev === WB.HebrewLetter && r === WB.HebrewLetter && c === WB.DoubleQuote) join = true;
            if (join) {
              next = after + width;
              prev = r;
              end = skipAttached(next);
              sawCore = true;
              continue;
            }
          }
          if (prev === WB.HebrewLetter && c === WB.SingleQuote) {
            // WB7a: Hebrew_Letter × Single_Quote. Lucene's grammar then lets a letter or digit
            // continue the same token (ש'1 is one token); anything else ends it.
            end = skipAttached(next);
            if (end < n) {
              read(end);
              if (isAHLetter(cls) || cls === WB.Numeric) {
                prev = cls;
                end = skipAttached(end + width);
                continue;
              }
            }
            break;
          }
        }
        if (!join) break;
        prev = c;
        if (c !== WB.ExtendNumLet) sawCore = true;
        end = skipAttached(next);
      }
      if (sawCore) emitCapped(start, end);
      i = end;
    } else if (c0 === WB.Han || c0 === WB.Hiragana) {
      const end = skipAttached(i + width);
      emit(start, end);
      i = end;
    } else if (c0 === WB.ComplexContext) {
      let end = i + width;
      while (end < n) {
        read(end);
        if (cls !== WB.ComplexContext && !isAttached(cls)) break;
        end += width;
      }
      emitCapped(start, end);
      i = end;
    } else if (c0 === WB.Emoji || c0 === WB.RegionalIndicator || c0 === WB.EmojiModifier) {
      i = scanEmoji(i, c0, width);
    } else if ((text.charCodeAt(i) === 0x23 || text.charCodeAt(i) === 0x2a) && isKeycap(i + 1)) {
      const end = skipAttached(i + 1); // keycap sequence: # or * , U+FE0F?, U+20E3
      emit(start, end);
      i = end;
    } else {
      i += width;
    }
  }

  function isModifierBase(j: number, w: number): boolean {
    return RE_MODIFIER_BASE.test(text.slice(j, j + w));
  }

  function isKeycap(j: number): boolean {
    if (text.charCodeAt(j) === 0xfe0f) j++;
    return text.charCodeAt(j) === 0x20e3;
  }

  /** Emoji: Extended_Pictographic (+Extend) (ZWJ Extended_Pictographic (+Extend))*, or a regional-indicator pair. */
  function scanEmoji(start: number, c0: WB, w0: number): number {
    if (c0 === WB.RegionalIndicator) {
      let end = start + w0;
      if (end < n) {
        read(end);
        if (cls === WB.RegionalIndicator) {
          end = skipAttached(end + width);
          emit(start, end);
          return end;
        }
      }
      return skipAttached(end);
    }
    let end = start + w0;
    let base = isModifierBase(start, w0);
    for (;;) {
      end = skipAttached(end);
      while (base && end < n) {
        read(end);
        if (cls !== WB.EmojiModifier) break;
        end = skipAttached(end + width);
      }
      if (end >= n) break;
      // WB3c: ZWJ × Extended_Pictographic. The ZWJ was consumed by skipAttached; look back.
      if (text.charCodeAt(end - 1) !== 0x200d) break;
      read(end);
      if (cls !== WB.Emoji) break;
      base = isModifierBase(end, width);
      end += width;
    }
    emit(start, end); // Lucene 8 emits every Extended_Pictographic, text presentation (©, ™) included
    return end;
  }
}

/** The tokenizer alone (StandardTokenizer output, original case). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  scanTokens(text, (s, e) => {
    out.push(text.slice(s, e));
  });
  return out;
}
