/**
 * Builds the `tokenizer.json` object of a BERT-uncased WordPiece tokenizer for a given vocab,
 * in the schema of Hugging Face tokenizers (the same object `BertTokenizerFast` saves for
 * bert-base-uncased): BertNormalizer(clean_text, handle_chinese_chars, strip_accents=null ->
 * follows lowercase, lowercase), BertPreTokenizer, WordPiece([UNK], "##", 100 chars),
 * TemplateProcessing [CLS] $A [SEP] / [CLS] $A [SEP] $B:1 [SEP]:1, WordPiece decoder.
 * Pure; `writeTokenizerJson` is the file adapter (real runs write it next to vocab.txt so
 * Python and TS load the same tokenizer).
 */
import { writeFileSync } from "node:fs";
import { CLS, SEP, TRAINED_SPECIAL_TOKENS, UNK } from "./special-tokens.ts";
import type { Vocab } from "./vocab.ts";

export interface BertTokenizerJsonOptions {
  readonly maxInputCharsPerWord?: number;
  readonly lowercase?: boolean;
}

export type TokenizerJson = Record<string, unknown> & { model: Record<string, unknown> };

export function buildBertTokenizerJson(vocab: Vocab, options: BertTokenizerJsonOptions = {}): TokenizerJson {
  const lowercase = options.lowercase ?? true;
  const idOf = (t: string): number => {
    const id = vocab.index.get(t);
    if (id === undefined) throw new Error(`vocab has no ${t}`);
    return id;
  };
  const addedTokens = TRAINED_SPECIAL_TOKENS.filter((t) => vocab.index.has(t))
    .map((t) => ({ id: idOf(t), content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }))
    .sort((a, b) => a.id - b.id);
  const cls = idOf(CLS);
  const sep = idOf(SEP);
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: addedTokens,
    normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [{ SpecialToken: { id: CLS, type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: SEP, type_id: 0 } }],
      pair: [
        { SpecialToken: { id: CLS, type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: SEP, type_id: 0 } },
        { Sequence: { id: "B", type_id: 1 } },
        { SpecialToken: { id: SEP, type_id: 1 } },
      ],
      special_tokens: {
        [CLS]: { id: CLS, ids: [cls], tokens: [CLS] },
        [SEP]: { id: SEP, ids: [sep], tokens: [SEP] },
      },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: {
      type: "WordPiece",
      unk_token: UNK,
      continuing_subword_prefix: "##",
      max_input_chars_per_word: options.maxInputCharsPerWord ?? 100,
      vocab: Object.fromEntries(vocab.tokens.map((t, i) => [t, i])),
    },
  };
}

/** The matching tokenizer_config.json (what transformers' AutoTokenizer reads beside it). */
export function buildBertTokenizerConfig(options: BertTokenizerJsonOptions = {}): Record<string, unknown> {
  return {
    tokenizer_class: "BertTokenizer",
    do_lower_case: options.lowercase ?? true,
    tokenize_chinese_chars: true,
    strip_accents: null,
    unk_token: UNK,
    sep_token: SEP,
    pad_token: "[PAD]",
    cls_token: CLS,
    mask_token: "[MASK]",
    model_max_length: 512,
    clean_up_tokenization_spaces: true,
  };
}

export function writeTokenizerJson(dir: string, vocab: Vocab, options: BertTokenizerJsonOptions = {}): void {
  writeFileSync(`${dir}/tokenizer.json`, JSON.stringify(buildBertTokenizerJson(vocab, options)) + "\n", "utf8");
  writeFileSync(`${dir}/tokenizer_config.json`, JSON.stringify(buildBertTokenizerConfig(options), null, 2) + "\n", "utf8");
}
