/**
 * BERT-uncased text normalisation and pre-tokenisation, written to match Hugging Face
 * tokenizers' Rust `BertNormalizer { clean_text, handle_chinese_chars, strip_accents, lowercase }`
 * followed by `BertPreTokenizer` (what `BertTokenizerFast("bert-base-uncased")`, the authors'
 * tokenizer, runs). Pure functions; used by the reference tokenizer and the vocabulary trainer.
 *
 * Rules (per Unicode code point):
 * 1. clean: drop U+0000, U+FFFD and "other" chars (Cc, Cf, Cn, Co, Cs) except \t \n \r;
 *    White_Space chars become ' '.
 * 2. CJK ideographs (the BERT ranges, including the supplementary planes) get a space on each side.
 * 3. strip accents: NFD, then drop nonspacing marks (Mn).
 * 4. lowercase char by char (so 'Σ' always becomes 'σ': Rust lowercases per char, unlike
 *    JavaScript's and Python's whole-string final-sigma rule).
 * 5. split on whitespace; every punctuation char (ASCII !-/ :-@ [-` {-~ or Unicode P*) is its own word.
 */

export function isBertChineseChar(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b820 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

const OTHER = /^[\p{Cc}\p{Cf}\p{Cn}\p{Co}\p{Cs}]$/u;
const WHITE = /^\p{White_Space}$/u;
const PUNCT = /^[\p{P}!-/:-@[-`{-~]$/u;
const NON_ASCII = /[^\x20-\x7e]/;
const MARKS = /\p{Mn}/gu;

export function isBertPunctuation(ch: string): boolean {
  return PUNCT.test(ch);
}

/** Steps 1-4. ASCII-printable input takes a fast path with the same result. */
export function bertNormalize(text: string): string {
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  let out = "";
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (ch === "\t" || ch === "\n" || ch === "\r") {
      out += " ";
      continue;
    }
    if (cp === 0 || cp === 0xfffd || OTHER.test(ch)) continue;
    if (WHITE.test(ch)) out += " ";
    else if (isBertChineseChar(cp)) out += ` ${ch} `;
    else out += ch;
  }
  out = out.normalize("NFD").replace(MARKS, "");
  // Per-char lowercase: only Final_Sigma is context-dependent in String#toLowerCase.
  return out.replaceAll("Σ", "σ").toLowerCase();
}

/** Step 5 on already-normalised text. */
export function bertPreTokenize(normalized: string): string[] {
  const words: string[] = [];
  let cur = "";
  for (const ch of normalized) {
    if (ch === " " || WHITE.test(ch)) {
      if (cur) words.push(cur);
      cur = "";
    } else if (isBertPunctuation(ch)) {
      if (cur) words.push(cur);
      words.push(ch);
      cur = "";
    } else {
      cur += ch;
    }
  }
  if (cur) words.push(cur);
  return words;
}

/** Normalise + pre-tokenise: the "words" WordPiece sees. */
export function bertWords(text: string): string[] {
  return bertPreTokenize(bertNormalize(text));
}
