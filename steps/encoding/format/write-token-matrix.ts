/**
 * Thin file adapter: writes formatted sequences for the training container.
 *   <name>.input_ids.npy       int32 [N, L], padded with 0 ([PAD]); attention mask = ids != 0
 *   <name>.token_type_ids.npy  int8  [N, L]
 *   <name>.row_ids.txt         N lines: the qid / passage id of each row, in input order
 *   <name>.meta.json           sidecar (see TokenMatrixMeta)
 * Streams: memory stays O(chunk), whatever the number of rows.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../../pipeline/engine/errors.ts";
import type { TokenEncoder } from "../tokenize/encoder.ts";
import { LineWriter } from "./line-writer.ts";
import { NpyRowWriter } from "./npy-row-writer.ts";
import { DEFAULT_MAX_PASSAGE_LENGTH, encodePassage, type PassageEncodingOptions } from "./passage-tokens.ts";
import type { QueryFormName } from "./query-forms.ts";
import { DEFAULT_MAX_QUERY_LENGTH, encodeQuery, type QueryEncodingOptions } from "./query-tokens.ts";
import type { EncodedSequence, PassageRow, TurnRow } from "./rows.ts";

export interface TokenMatrixMeta {
  readonly format: "cspipe/token-matrix@1";
  readonly name: string;
  readonly rows: number;
  readonly max_length: number;
  /** rows whose input lost tokens to truncation */
  readonly truncated: number;
  /** longest row actually written (<= max_length) */
  readonly longest: number;
  readonly pad_id: 0;
  readonly tokenizer: string;
  readonly vocab_digest: string;
  readonly vocab_size: number;
  readonly special_ids: { pad: number; unk: number; cls: number; sep: number; mask: number };
  readonly files: { input_ids: string; token_type_ids: string; row_ids: string };
  /** what was formatted and how (query form, retainFirst, useTitle, ...) */
  readonly params: Record<string, string | number | boolean>;
}

export interface EncodedRow {
  readonly id: string;
  readonly seq: EncodedSequence;
}

export function writeTokenMatrix(
  dir: string,
  name: string,
  rows: Iterable<EncodedRow>,
  info: { maxLength: number; encoder: TokenEncoder; params: Record<string, string | number | boolean> },
  onProgress?: (done: number, total?: number) => void,
): TokenMatrixMeta {
  const files = { input_ids: `${name}.input_ids.npy`, token_type_ids: `${name}.token_type_ids.npy`, row_ids: `${name}.row_ids.txt` };
  const ids = new NpyRowWriter(join(dir, files.input_ids), "int32", info.maxLength);
  const types = new NpyRowWriter(join(dir, files.token_type_ids), "int8", info.maxLength);
  const rowIds = new LineWriter(join(dir, files.row_ids));
  let truncated = 0;
  let longest = 0;
  try {
    for (const row of rows) {
      if (/[\n\r]/.test(row.id)) throw new InputError(`row id ${JSON.stringify(row.id)} contains a line break`, { field: "id" });
      if (row.seq.ids.length > info.maxLength) throw new Error(`row ${row.id}: ${row.seq.ids.length} tokens > maxLength ${info.maxLength}`);
      ids.append(row.seq.ids);
      types.append(row.seq.typeIds);
      rowIds.push(row.id);
      if (row.seq.truncated) truncated++;
      if (row.seq.ids.length > longest) longest = row.seq.ids.length;
      if (ids.count % 1000 === 0) onProgress?.(ids.count);
    }
    rowIds.flush();
  } finally {
    ids.close();
    types.close();
    rowIds.close();
  }
  onProgress?.(ids.count, ids.count);
  const meta: TokenMatrixMeta = {
    format: "cspipe/token-matrix@1",
    name,
    rows: ids.count,
    max_length: info.maxLength,
    truncated,
    longest,
    pad_id: 0,
    tokenizer: info.encoder.implementation,
    vocab_digest: info.encoder.vocabDigest,
    vocab_size: info.encoder.vocabSize,
    special_ids: { ...info.encoder.special },
    files,
    params: info.params,
  };
  writeFileSync(join(dir, `${name}.meta.json`), JSON.stringify(meta, null, 2) + "\n", "utf8");
  return meta;
}

/** Queries of one form -> `<name>.*` (name defaults to `queries.<form>`). */
export function writeQueryMatrix(
  dir: string,
  turns: Iterable<TurnRow>,
  form: QueryFormName,
  encoder: TokenEncoder,
  options: QueryEncodingOptions & { name?: string; onProgress?: (done: number, total?: number) => void } = {},
): TokenMatrixMeta {
  const maxLength = options.maxLength ?? DEFAULT_MAX_QUERY_LENGTH;
  const retainFirst = options.retainFirst ?? true;
  function* rows(): Generator<EncodedRow> {
    for (const t of turns) yield { id: t.qid, seq: encodeQuery(t, form, encoder, { maxLength, retainFirst }) };
  }
  return writeTokenMatrix(dir, options.name ?? `queries.${form}`, rows(), { maxLength, encoder, params: { kind: "queries", form, retainFirst } }, options.onProgress);
}

/** Passages -> `<name>.*` (name defaults to `passages`). */
export function writePassageMatrix(
  dir: string,
  passages: Iterable<PassageRow>,
  encoder: TokenEncoder,
  options: PassageEncodingOptions & { name?: string; onProgress?: (done: number, total?: number) => void } = {},
): TokenMatrixMeta {
  const maxLength = options.maxLength ?? DEFAULT_MAX_PASSAGE_LENGTH;
  const useTitle = options.useTitle ?? true;
  const segmentIds = options.segmentIds ?? "zeros";
  function* rows(): Generator<EncodedRow> {
    for (const p of passages) yield { id: p.id, seq: encodePassage(p, encoder, { maxLength, useTitle, segmentIds }) };
  }
  return writeTokenMatrix(dir, options.name ?? "passages", rows(), { maxLength, encoder, params: { kind: "passages", useTitle, segmentIds } }, options.onProgress);
}
