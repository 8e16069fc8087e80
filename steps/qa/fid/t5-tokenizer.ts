/**
 * T5's SentencePiece Unigram tokenizer in Node: the model's pieces run through
 * @huggingface/tokenizers' Unigram (Viterbi over the whole normalized string, unknown
 * characters fused into one <unk>), after SentencePiece's own normalizer (sp-normalizer.ts).
 * Reads `spiece.model` or T5's `tokenizer.json`. Control pieces (<pad>, </s>) are never matched
 * in text, as in SentencePiece. `encode` adds no </s>; `decode` joins pieces with "▁" as space.
 */
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { Tokenizer } from "@huggingface/tokenizers";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { parseSpieceModel, parseUnigramTokenizerJson, PIECE_TYPE, type SentencePieceSpec } from "./spiece.ts";
import { SentencePieceNormalizer } from "./sp-normalizer.ts";

export interface T5Tokenizer {
  readonly vocabSize: number;
  /** sha256 of the model file the tokenizer was read from. */
  readonly vocabDigest: string;
  readonly padId: number;
  readonly eosId: number;
  readonly unkId: number;
  readonly spec: SentencePieceSpec;
  encode(text: string): number[];
  pieces(text: string): string[];
  decode(ids: readonly number[]): string;
}

const CONTROL_MASK = "\u0000\u0000";

export function createT5Tokenizer(spec: SentencePieceSpec, digest: string): T5Tokenizer {
  const id = (type: number, piece: string, fallback: number): number => {
    const i = spec.pieces.findIndex((p) => p.type === type && p.piece === piece);
    return i >= 0 ? i : fallback;
  };
  const unkId = spec.pieces.findIndex((p) => p.type === PIECE_TYPE.unknown);
  if (unkId < 0) throw new InputError("the SentencePiece model has no unknown piece", { fix: "pass T5's spiece.model or tokenizer.json" });
  const vocab = spec.pieces.map((p, i): [string, number] => [p.type === PIECE_TYPE.control ? `${CONTROL_MASK}${i}` : p.piece, p.score]);
  const json = {
    version: "1.0",
    normalizer: null,
    pre_tokenizer: { type: "Metaspace", replacement: "\u2581", prepend_scheme: "never", split: false },
    post_processor: null,
    decoder: { type: "Metaspace", replacement: "\u2581", prepend_scheme: "always", split: false },
    model: { type: "Unigram", unk_id: unkId, vocab, byte_fallback: false },
    added_tokens: [],
  };
  const tok = new Tokenizer(json, {});
  const norm = new SentencePieceNormalizer(spec);
  return {
    vocabSize: spec.pieces.length,
    vocabDigest: digest,
    padId: id(PIECE_TYPE.control, "<pad>", 0),
    eosId: id(PIECE_TYPE.control, "</s>", 1),
    unkId,
    spec,
    encode: (text) => {
      const n = norm.normalize(text);
      return n === "" ? [] : tok.encode(n, { add_special_tokens: false }).ids;
    },
    pieces: (text) => {
      const n = norm.normalize(text);
      return n === "" ? [] : tok.tokenize(n, { add_special_tokens: false });
    },
    decode: (ids) => {
      const text = ids.map((i) => {
        const p = spec.pieces[i];
        if (p === undefined || p.type === PIECE_TYPE.control) return "";
        return p.type === PIECE_TYPE.unknown ? " \u2047 " : p.piece;
      }).join("").replaceAll("\u2581", " ");
      return text.startsWith(" ") ? text.slice(1) : text;
    },
  };
}

/** A tokenizer from `spiece.model` or `tokenizer.json` (by content: JSON starts with `{`). */
export function loadT5Tokenizer(path: string): T5Tokenizer {
  const buf = readFileSync(path);
  const digest = createHash("sha256").update(buf).digest("hex");
  const spec = buf[0] === 0x7b ? parseUnigramTokenizerJson(buf.toString("utf8"), path) : parseSpieceModel(new Uint8Array(buf), path);
  return createT5Tokenizer(spec, digest);
}
