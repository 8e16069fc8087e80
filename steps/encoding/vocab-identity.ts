/**
 * Token ids only mean something with the vocabulary that produced them. Every place that
 * combines token matrices, or token matrices and a model, checks that they share one:
 * - a token directory records its vocabulary in `meta.json` (`vocabSize`, `vocabDigest`:
 *   the sha256 of the canonical vocab.txt, steps/encoding/tokenize/vocab.ts);
 * - a trainer's model directory records the vocabulary it was trained on in `config.json`
 *   (`vocab_size`, the rows of its embedding table, and `cspipe.vocab_digest`);
 * - assembled training examples record theirs in `meta.json` (`vocabDigest`).
 *
 * Sizes catch ids past the embedding table (onnxruntime's Gather would fail deep in a
 * batch); digests catch two different vocabularies of the same size, which no size check
 * can. A directory that records neither is not checked (e.g. an ONNX-only model).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";

/** What one file says about its vocabulary; fields it does not record are absent. */
export interface VocabRecord {
  readonly file: string;
  readonly size?: number;
  readonly digest?: string;
  /** The fields read, for error messages. */
  readonly sizeField: string;
  readonly digestField: string;
}

const FIX = "tokenize with the vocabulary the model was trained with (for DPR-NQ, import-bert-vocab)";

/** Throws when the tokens do not belong to the model's vocabulary (larger, or a different digest). */
export function checkTokensFitModel(tokens: VocabRecord, model: VocabRecord): void {
  if (tokens.size !== undefined && model.size !== undefined && tokens.size > model.size) {
    throw new InputError(`the tokens come from a vocabulary of ${tokens.size} ids, but the model's embedding table has ${model.size} rows (${model.file})`, {
      file: tokens.file,
      field: tokens.sizeField,
      fix: FIX,
    });
  }
  if (tokens.digest !== undefined && model.digest !== undefined && tokens.digest !== model.digest) {
    throw new InputError(`the tokens come from vocabulary ${short(tokens.digest)}, but the model was trained on vocabulary ${short(model.digest)} (${model.file}, ${model.digestField})`, {
      file: tokens.file,
      field: tokens.digestField,
      fix: FIX,
    });
  }
}

/** Throws unless every record that names a digest names the same one; returns it (undefined when none does). */
export function sameVocabulary(records: readonly VocabRecord[]): string | undefined {
  const named = records.filter((r) => r.digest !== undefined);
  const first = named[0];
  for (const r of named.slice(1)) {
    if (r.digest !== first!.digest) {
      throw new InputError(`vocabulary ${short(r.digest!)} differs from ${short(first!.digest!)} recorded in ${first!.file}: their token ids mean different words`, {
        file: r.file,
        field: r.digestField,
        fix: "tokenize queries and passages with the same vocabulary step",
      });
    }
  }
  return first?.digest;
}

function short(digest: string): string {
  return `${digest.slice(0, 12)}…`;
}

function readJson(file: string): Record<string, unknown> | undefined {
  if (!existsSync(file)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new InputError(`not valid JSON (${(e as Error).message})`, { file });
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new InputError("expected a JSON object", { file });
  return raw as Record<string, unknown>;
}

function field(obj: Record<string, unknown> | undefined, path: string): unknown {
  let v: unknown = obj;
  for (const part of path.split(".")) v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[part] : undefined;
  return v;
}

function record(file: string, obj: Record<string, unknown> | undefined, sizeField: string, digestField: string): VocabRecord {
  const size = field(obj, sizeField);
  const digest = field(obj, digestField);
  if (size !== undefined && (!Number.isInteger(size) || (size as number) < 1)) throw new InputError(`${sizeField} must be a positive integer, got ${JSON.stringify(size)}`, { file, field: sizeField });
  if (digest !== undefined && (typeof digest !== "string" || !/^[0-9a-f]{64}$/.test(digest))) throw new InputError(`${digestField} must be a sha256 hex string, got ${JSON.stringify(digest)}`, { file, field: digestField });
  return { file, sizeField, digestField, ...(size !== undefined ? { size: size as number } : {}), ...(digest !== undefined ? { digest: digest as string } : {}) };
}

/** A token directory's record (`meta.json`: vocabSize, vocabDigest). */
export function tokensVocab(tokensDir: string): VocabRecord {
  const file = join(tokensDir, "meta.json");
  return record(file, readJson(file), "vocabSize", "vocabDigest");
}

/** A model directory's record (`config.json`: vocab_size, cspipe.vocab_digest). */
export function modelVocab(modelDir: string): VocabRecord {
  const file = join(modelDir, "config.json");
  return record(file, readJson(file), "vocab_size", "cspipe.vocab_digest");
}

/** The check on a token directory and a model directory, from their files. */
export function checkTokensFitModelDirs(tokensDir: string, modelDir: string): void {
  checkTokensFitModel(tokensVocab(tokensDir), modelVocab(modelDir));
}
