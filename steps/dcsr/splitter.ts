/**
 * DCSR's sentence splitter (Wu et al. 2022; the rule of the released code's corpus
 * preparation, reimplemented from its description), pure. Text is split into whitespace
 * words; a sentence may end after a word whose last character is `.`, `!` or `?`, unless
 *  - the rest of the word holds a character other than an ASCII letter (a number such as
 *    "1825.", an abbreviation such as "U.S.", a word with a quote or bracket),
 *  - the rest of the word holds more than one capital ("NASA.", "McDonald."),
 *  - the word is one capital and the full stop ("J."),
 *  - the word is a listed abbreviation ("etc.", "e.g.", "Mr.", ...),
 *  - the next word does not start with a capital A-Z (lower case, a digit, a quote),
 * and a sentence ends there only once it holds at least `minWords` words (the code writes
 * `len(sentence) > 8` over a list that starts with its marker token: at least 8 words). A
 * last sentence of fewer than `minTailWords` words (the code: `< 8` with the marker, fewer
 * than 7 words) is merged into the sentence before it. One deviation: a passage whose only
 * sentence is short keeps it (the code drops its marker, leaving the passage out of the
 * index altogether).
 *
 * Offsets are UTF-16 code-unit positions in the original text (`text.slice(start, end)` is
 * the sentence, from its first word's first character to its last word's last one).
 */

export interface SplitRule {
  /** A sentence ends only once it holds at least this many words (DCSR: 8). */
  readonly minWords: number;
  /** A last sentence with fewer words merges into the previous one (DCSR: 7). */
  readonly minTailWords: number;
}

export const DCSR_SPLIT_RULE: SplitRule = { minWords: 8, minTailWords: 7 };

/** Words that end with a full stop but never end a sentence (the released code's list). */
export const NON_TERMINAL_WORDS: ReadonlySet<string> = new Set(["etc.", "e.g.", "diff.", "vs.", "i.e.", "Mr.", "Miss.", "Mrs.", "B.C.", "A.D."]);

export interface SentenceSpan {
  readonly start: number;
  readonly end: number;
  /** Whitespace words in the sentence. */
  readonly words: number;
}

export interface Word {
  readonly start: number;
  readonly end: number;
}

/** Whitespace-separated words with their offsets (Python's `str.split()`: any run of Unicode whitespace). */
export function words(text: string): Word[] {
  const out: Word[] = [];
  const re = /\S+/gu;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) out.push({ start: m.index, end: m.index + m[0].length });
  return out;
}

const isUpper = (c: string): boolean => c >= "A" && c <= "Z";
const isLetter = (c: string): boolean => isUpper(c) || (c >= "a" && c <= "z");

/** Whether a sentence may end after `word` when `next` follows (undefined: `word` is the last word). */
export function mayEndSentence(word: string, next: string | undefined): boolean {
  const last = word[word.length - 1];
  if (last !== "." && last !== "!" && last !== "?") return false;
  if (NON_TERMINAL_WORDS.has(word)) return false;
  const body = word.slice(0, -1);
  let capitals = 0;
  for (const c of body) {
    if (!isLetter(c)) return false;
    if (isUpper(c)) capitals++;
  }
  if (capitals > 1) return false;
  if (body.length === 1 && capitals === 1) return false;
  if (next !== undefined && !isUpper(next[0] ?? "")) return false;
  return true;
}

/** The sentences of `text` under `rule`; empty text (no words) has none. */
export function splitSentences(text: string, rule: SplitRule = DCSR_SPLIT_RULE): SentenceSpan[] {
  const ws = words(text);
  const groups: Word[][] = [];
  let current: Word[] = [];
  ws.forEach((w, i) => {
    current.push(w);
    const next = ws[i + 1];
    const token = text.slice(w.start, w.end);
    if (next !== undefined && current.length >= rule.minWords && mayEndSentence(token, text.slice(next.start, next.end))) {
      groups.push(current);
      current = [];
    }
  });
  if (current.length > 0) groups.push(current);
  const tail = groups[groups.length - 1];
  if (groups.length > 1 && tail !== undefined && tail.length < rule.minTailWords) {
    groups.pop();
    groups[groups.length - 1]!.push(...tail);
  }
  return groups.map((g) => ({ start: g[0]!.start, end: g[g.length - 1]!.end, words: g.length }));
}
