/**
 * Lucene 8.8.1's StandardTokenizer, token for token (what Anserini's analyzers start from).
 *
 * The rule, as Lucene's generated scanner applies it:
 *  1. Every code point has one of 30 character classes (./wordbreak-classes.ts), looked up in a table
 *     generated from Lucene itself (./wordbreak-table.ts: Unicode 9.0 word-break data, emoji 11.0).
 *     A lone surrogate is a code point of class Other.
 *  2. From the current position the scanner runs the grammar's DFA (./wordbreak-grammar.ts) and
 *     takes the longest match of any rule; the rule decides the token type, and the catch-all rule
 *     emits nothing (the code point is dropped). Scanning resumes where the match ended.
 *  3. The scanner sees at most 255 UTF-16 units from the token's start (its buffer; Lucene's
 *     maxTokenLength 255), or 254 when unit 255 would be the first half of a surrogate pair. A longer
 *     word is cut at its longest match inside that window and the rest scanned as a new token, so
 *     "x" x 600 gives tokens of 255, 255 and 90 units; a 254-letter word followed by ".b" gives the
 *     254 letters and "b" (the longer match "...x.b" does not fit).
 *
 * Why not `Intl.Segmenter`: ICU's word segmenter uses dictionaries for CJK and Thai (Lucene emits one
 * token per Han ideograph / Hiragana character and one per run of Thai letters), does not mark emoji
 * as words, uses Node's newer Unicode data and allocates an object per segment.
 * Parity: test/sparse/wordbreak-parity.test.ts checks every code point and generated sequences
 * against the live Lucene peer.
 */
import { compileGrammar } from "./wordbreak-grammar.ts";
import { expandRanges, type TokenType, type WB } from "./wordbreak-classes.ts";
import { WB_RANGES } from "./wordbreak-table.ts";

export { TOKEN_TYPES, type TokenType } from "./wordbreak-classes.ts";

export const MAX_TOKEN_LENGTH = 255;

interface Tables {
  /** Class of every code point 0..0x10FFFF (1.1 MB). */
  readonly cls: Uint8Array;
  readonly next: Uint16Array;
  readonly stateType: Int8Array;
  readonly start: number;
  readonly symbols: number;
}

let tables: Tables | null = null;

/** Built on first use (~20-60 ms), so programs that never tokenize do not pay for it. */
function load(): Tables {
  if (tables === null) {
    const { dfa, stateType } = compileGrammar();
    tables = { cls: expandRanges(WB_RANGES), next: dfa.next, stateType, start: dfa.start, symbols: dfa.symbols };
  }
  return tables;
}

/** The character class of code point cp (a lone surrogate is Other). */
export function wordBreakClass(cp: number): WB {
  return load().cls[cp] as WB;
}

/**
 * Scans `text` and calls `emit(start, end, type)` for every token (UTF-16 offsets, end exclusive;
 * type indexes TOKEN_TYPES). Pure; the callback form avoids allocating arrays in the indexing loop.
 */
export function scanTokens(text: string, emit: (start: number, end: number, type: TokenType) => void): void {
  const { cls, next, stateType, start: START, symbols: NSYM } = tables ?? load();
  const n = text.length;
  let i = 0;
  while (i < n) {
    // The scanner's window: 255 units, or 254 if the 255th would start a surrogate pair.
    let limit = n;
    if (n - i >= MAX_TOKEN_LENGTH) {
      limit = i + MAX_TOKEN_LENGTH;
      const last = text.charCodeAt(limit - 1);
      if (last >= 0xd800 && last <= 0xdbff) limit--;
    }
    let state = START;
    let pos = i;
    let matchEnd = -1;
    let matchType = -1;
    while (pos < limit) {
      let cp = text.charCodeAt(pos);
      let width = 1;
      if (cp >= 0xd800 && cp <= 0xdbff && pos + 1 < limit) {
        const lo = text.charCodeAt(pos + 1);
        if (lo >= 0xdc00 && lo <= 0xdfff) {
          cp = ((cp - 0xd800) << 10) + (lo - 0xdc00) + 0x10000;
          width = 2;
        }
      }
      state = next[state * NSYM + cls[cp]!]!;
      if (state === 0) break;
      pos += width;
      const t = stateType[state]!;
      if (t !== -2) {
        matchEnd = pos;
        matchType = t;
      }
    }
    // The catch-all rule matches any one code point, so the first step always accepts.
    if (matchType >= 0) emit(i, matchEnd, matchType as TokenType);
    i = matchEnd;
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

/** Tokens with their StandardTokenizer types. */
export function tokenizeTyped(text: string): { token: string; type: TokenType }[] {
  const out: { token: string; type: TokenType }[] = [];
  scanTokens(text, (s, e, type) => {
    out.push({ token: text.slice(s, e), type });
  });
  return out;
}
