/**
 * Anserini's DefaultEnglishAnalyzer (what Pyserini's default BM25 indexes use), in Anserini's order:
 *   StandardTokenizer (Lucene 8.8.1's UAX#29 scanner, ./wordbreak.ts) -> EnglishPossessiveFilter
 *   -> LowerCaseFilter -> StopFilter(EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, 33 words) -> PorterStemFilter.
 * Every token type the tokenizer emits is kept (<ALPHANUM>, <NUM>, <SOUTHEAST_ASIAN>, <IDEOGRAPHIC>,
 * <HIRAGANA>, <KATAKANA>, <HANGUL>, <EMOJI>): no filter of the chain looks at types, so ★ and 👍🏽
 * are terms. The possessive filter runs before lower-casing, so it removes both `'s` and `'S`.
 * No position or overlap tricks: the document length Lucene stores is the number of terms this
 * function returns (stop words removed, repeats counted).
 * Parity: every code point through the whole chain is compared with Lucene in
 * test/sparse/wordbreak-parity.test.ts (the lower-casing below agrees with Java 17's on all of them).
 */
import { porterStem } from "./porter.ts";
import { scanTokens } from "./wordbreak.ts";

/**
 * Stored in index headers; bump when the analysis output changes for any input (an index built
 * with another id is refused). 2: the tokenizer follows Lucene 8.8.1's grammar and Unicode 9.0 /
 * emoji 11.0 tables on every code point (1 used Node's Unicode data and hand-written rules).
 */
export const ANALYZER_ID = "anserini-default-english/lucene8.8.1/2";

/** Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET (checked against Lucene in test/sparse/analyzer.test.ts). */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set([
  "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not",
  "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was",
  "will", "with",
]);

/** EnglishPossessiveFilter: drops a trailing 's / 'S written with ', U+2019 or U+FF07. */
export function stripPossessive(token: string): string {
  const n = token.length;
  if (n < 2) return token;
  const s = token.charCodeAt(n - 1);
  const q = token.charCodeAt(n - 2);
  if ((s === 0x73 || s === 0x53) && (q === 0x27 || q === 0x2019 || q === 0xff07)) return token.slice(0, n - 2);
  return token;
}

const lowerBmp = new Map<number, number>();

/** Java's Character.toLowerCase per code point (simple case mapping, no context: Σ -> σ, İ -> i). */
export function javaLowerCase(token: string): string {
  let ascii = true;
  for (let i = 0; i < token.length; i++) {
    if (token.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) return token.toLowerCase();
  let out = "";
  for (const ch of token) {
    const cp = ch.codePointAt(0)!;
    let lc = lowerBmp.get(cp);
    if (lc === undefined) {
      const full = ch.toLowerCase();
      // Only one-to-one mappings are simple mappings; U+0130 is the one whose simple mapping is 'i'.
      lc = cp === 0x130 ? 0x69 : [...full].length === 1 ? full.codePointAt(0)! : cp;
      lowerBmp.set(cp, lc);
    }
    out += String.fromCodePoint(lc);
  }
  return out;
}

/** The filter chain for one token: the indexed term, or null for a stop word. */
export function analyzeToken(token: string): string | null {
  const lower = javaLowerCase(stripPossessive(token));
  if (ENGLISH_STOP_WORDS.has(lower)) return null;
  return porterStem(lower);
}

/** Token -> term cache; text is Zipfian, so a small cache removes most stemming work. */
const CACHE_LIMIT = 1 << 18;
let cache = new Map<string, string | null>();

function cachedTerm(token: string): string | null {
  let term = cache.get(token);
  if (term === undefined) {
    term = analyzeToken(token);
    if (cache.size >= CACHE_LIMIT) cache = new Map();
    cache.set(token, term);
  }
  return term;
}

/**
 * The tokenizer's spans [start, end) of `text`, before the filter chain. analyzeEach is exactly
 * `analyzeToken(text.slice(start, end))` over these spans; the index builder composes the two
 * itself with its own token cache (steps/sparse/index.ts), so keep that composition when changing this.
 */
export const scanTokenSpans: (text: string, emit: (start: number, end: number) => void) => void = scanTokens;

/** Calls `emit` with each analysed term of `text`, in order (stop words removed). */
export function analyzeEach(text: string, emit: (term: string) => void): void {
  scanTokens(text, (s, e) => {
    const term = cachedTerm(text.slice(s, e));
    if (term !== null) emit(term);
  });
}

/** Anserini's DefaultEnglishAnalyzer output for `text`. */
export function analyze(text: string): string[] {
  const out: string[] = [];
  analyzeEach(text, (t) => out.push(t));
  return out;
}
