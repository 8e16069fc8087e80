/**
 * Tokens and model must share a vocabulary. Token ids at or above the model's
 * `vocab_size` would index past its embedding table (onnxruntime's Gather fails deep in a
 * batch, or worse, a mismatched vocabulary of the same size goes unnoticed). Sizes are
 * what can be checked: a token directory records its vocabulary's size (`meta.json`
 * vocabSize), a model directory its config (`config.json` vocab_size).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";

/** Throws when the tokens' vocabulary is larger than the model's embedding table. */
export function checkVocabFits(tokens: { vocabSize: number; file: string }, model: { vocabSize: number; file: string }): void {
  if (tokens.vocabSize > model.vocabSize) {
    throw new InputError(`the tokens come from a vocabulary of ${tokens.vocabSize} ids, but the model's embedding table has ${model.vocabSize} rows (${model.file})`, {
      file: tokens.file,
      field: "vocabSize",
      fix: "tokenize with the vocabulary the model was trained with (for DPR-NQ, import-bert-vocab)",
    });
  }
}

function readSize(file: string, field: string): number | undefined {
  if (!existsSync(file)) return undefined;
  const raw = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  const v = raw[field];
  if (v === undefined) return undefined;
  if (!Number.isInteger(v) || (v as number) < 1) throw new InputError(`${field} must be a positive integer, got ${JSON.stringify(v)}`, { file, field });
  return v as number;
}

/** The check on a token directory and a model directory; skipped when either does not record its size. */
export function checkVocabFitsDirs(tokensDir: string, modelDir: string): void {
  const tokensFile = join(tokensDir, "meta.json");
  const modelFile = join(modelDir, "config.json");
  const t = readSize(tokensFile, "vocabSize");
  const m = readSize(modelFile, "vocab_size");
  if (t !== undefined && m !== undefined) checkVocabFits({ vocabSize: t, file: tokensFile }, { vocabSize: m, file: modelFile });
}
