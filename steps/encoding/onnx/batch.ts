/**
 * Building encoder input tensors from a token-id matrix (pure).
 *
 * Token ids are int32 [N, L] with pad id 0; attention mask = (id != 0); token type ids come
 * from an optional int8 matrix of the same shape (else 0). A batch is trimmed to the longest
 * real length among its rows (last non-pad position + 1), which saves work on short inputs
 * and leaves the embeddings unchanged for an encoder that masks padding.
 */
import { InputError } from "../../../pipeline/engine/errors.ts";
import type { NpyArray } from "../../lib/npy.ts";
import type { RowRange } from "./shards.ts";

export type TypeIds = Int8Array | Uint8Array | Int32Array;

export interface TokenMatrix {
  readonly rows: number;
  readonly seq: number;
  /** Row-major [rows, seq], pad id 0. */
  readonly ids: Int32Array;
  /** Row-major [rows, seq] token type ids, or undefined for all zeros. */
  readonly types?: TypeIds;
}

export interface EncoderBatch {
  readonly batch: number;
  readonly seq: number;
  readonly inputIds: BigInt64Array;
  readonly attentionMask: BigInt64Array;
  readonly tokenTypeIds: BigInt64Array;
}

/** Checks shapes and dtypes of the .npy inputs and wraps them as a TokenMatrix. */
export function tokenMatrixFromNpy(ids: NpyArray, types?: NpyArray, files: { ids?: string; types?: string } = {}): TokenMatrix {
  const idsFile = files.ids ?? "<token ids>";
  if (ids.dtype !== "int32" || !(ids.data instanceof Int32Array)) {
    throw new InputError(`token ids must be int32, got ${ids.dtype}`, { file: idsFile, fix: "save them with numpy as np.int32" });
  }
  if (ids.shape.length !== 2) throw new InputError(`token ids must be 2-d [N, L], got shape [${ids.shape}]`, { file: idsFile });
  const [rows, seq] = ids.shape as [number, number];
  if (seq === 0 && rows > 0) throw new InputError("token ids have length 0", { file: idsFile });
  for (let i = 0; i < ids.data.length; i++) {
    if (ids.data[i]! < 0) {
      throw new InputError(`negative token id ${ids.data[i]} at row ${Math.floor(i / seq)}, position ${i % seq}`, { file: idsFile, fix: "pad with 0, not -1" });
    }
  }
  if (types === undefined) return { rows, seq, ids: ids.data };
  const typesFile = files.types ?? "<token types>";
  if (!(types.data instanceof Int8Array || types.data instanceof Uint8Array || types.data instanceof Int32Array)) {
    throw new InputError(`token type ids must be int8 (or uint8/int32), got ${types.dtype}`, { file: typesFile, fix: "save them as np.int8" });
  }
  if (types.shape.length !== 2 || types.shape[0] !== rows || types.shape[1] !== seq) {
    throw new InputError(`token type ids have shape [${types.shape}], token ids [${ids.shape}]`, { file: typesFile, fix: "write both from the same tokenization" });
  }
  return { rows, seq, ids: ids.data, types: types.data };
}

/** Number of positions up to and including the last non-pad token of `row` (0 if all pad). */
export function realLength(tokens: TokenMatrix, row: number): number {
  const base = row * tokens.seq;
  for (let j = tokens.seq - 1; j >= 0; j--) if (tokens.ids[base + j] !== 0) return j + 1;
  return 0;
}

/**
 * Input tensors for rows [start, end). With `trim`, the sequence axis is cut to the batch's
 * longest real length (at least 1, so an all-padding batch still has a valid shape).
 */
export function makeBatch(tokens: TokenMatrix, range: RowRange, trim = true): EncoderBatch {
  const { start, end } = range;
  if (!(Number.isInteger(start) && Number.isInteger(end) && 0 <= start && start <= end && end <= tokens.rows)) {
    throw new InputError(`row range [${start}, ${end}) is outside [0, ${tokens.rows})`, { field: "rows" });
  }
  const batch = end - start;
  let seq = trim ? 1 : tokens.seq;
  for (let r = start; r < end; r++) {
    const len = realLength(tokens, r);
    // An encoder's output for a row with no real token depends on how much padding it sees
    // (attention over masked positions only), i.e. on the batch: refuse it.
    if (len === 0) {
      throw new InputError(`row ${r} has no tokens (all pad id 0)`, { field: "input_ids", fix: "drop empty texts before encoding, or tokenize them to [CLS] [SEP]" });
    }
    if (trim) seq = Math.max(seq, len);
  }
  const inputIds = new BigInt64Array(batch * seq);
  const attentionMask = new BigInt64Array(batch * seq);
  const tokenTypeIds = new BigInt64Array(batch * seq);
  for (let b = 0; b < batch; b++) {
    const src = (start + b) * tokens.seq;
    const dst = b * seq;
    for (let j = 0; j < seq; j++) {
      const id = tokens.ids[src + j]!;
      inputIds[dst + j] = BigInt(id);
      attentionMask[dst + j] = id !== 0 ? 1n : 0n;
      if (tokens.types !== undefined) tokenTypeIds[dst + j] = BigInt(tokens.types[src + j]!);
    }
  }
  return { batch, seq, inputIds, attentionMask, tokenTypeIds };
}
