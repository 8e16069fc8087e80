/**
 * Encoding token-id rows into embeddings with an ONNX encoder (core loop + thin .npy adapter).
 * Rows [start, end) are run in batches, each trimmed to its longest real length; the output is
 * float32 [end - start, hidden] in row order.
 */
import * as ort from "onnxruntime-node";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { readNpy, writeNpy } from "../../lib/npy.ts";
import { makeBatch, tokenMatrixFromNpy } from "./batch.ts";
import type { TokenMatrix } from "./batch.ts";
import { ENCODER_OUTPUT, openEncoder } from "./session.ts";
import type { EncoderSessionOptions, ExecutionProvider } from "./session.ts";
import { batchRanges } from "./shards.ts";
import type { RowRange } from "./shards.ts";

export interface EncodeOptions {
  /** Rows per run (default 64). */
  readonly batchSize?: number;
  /** Trim each batch to its longest real length (default true). */
  readonly trim?: boolean;
  readonly onProgress?: (done: number, total?: number) => void;
  /** Names the model in errors. */
  readonly modelFile?: string;
}

export interface Embeddings {
  readonly rows: number;
  readonly dim: number;
  readonly data: Float32Array;
}

/**
 * Runs `session` over rows [range.start, range.end) of `tokens`. An empty range returns
 * dim 0 (the model is not run, so its width is unknown).
 */
export async function encodeRows(session: ort.InferenceSession, tokens: TokenMatrix, range: RowRange, opts: EncodeOptions = {}): Promise<Embeddings> {
  if (!(Number.isInteger(range.start) && Number.isInteger(range.end) && 0 <= range.start && range.start <= range.end && range.end <= tokens.rows)) {
    throw new InputError(`row range [${range.start}, ${range.end}) is outside [0, ${tokens.rows})`, { field: "rows", fix: "use a range from splitRows(N, shards)" });
  }
  const batches = batchRanges(range, opts.batchSize ?? 64);
  const total = range.end - range.start;
  let data = new Float32Array(0);
  let dim = -1;
  let done = 0;
  for (const br of batches) {
    const b = makeBatch(tokens, br, opts.trim ?? true);
    const shape = [b.batch, b.seq];
    const feeds = {
      input_ids: new ort.Tensor("int64", b.inputIds, shape),
      attention_mask: new ort.Tensor("int64", b.attentionMask, shape),
      token_type_ids: new ort.Tensor("int64", b.tokenTypeIds, shape),
    };
    const result = await session.run(feeds);
    const out = result[ENCODER_OUTPUT];
    if (out === undefined || out.type !== "float32" || out.dims.length !== 2 || out.dims[0] !== b.batch) {
      throw new InputError(`output "${ENCODER_OUTPUT}" must be float32 [batch, hidden], got ${out?.type} [${out?.dims.join(", ")}]`, {
        ...(opts.modelFile !== undefined ? { file: opts.modelFile } : {}),
        fix: "re-export the encoder with the contract's output",
      });
    }
    if (dim < 0) {
      dim = out.dims[1]!;
      data = new Float32Array(total * dim);
    }
    data.set(out.data as Float32Array, (br.start - range.start) * dim);
    for (const t of Object.values(result)) t.dispose();
    done += b.batch;
    opts.onProgress?.(done, total);
  }
  return { rows: total, dim: Math.max(dim, 0), data };
}

export interface EncodeFileParams extends EncodeOptions, EncoderSessionOptions {
  readonly model: string;
  /** int32 [N, L] token ids, pad 0. */
  readonly ids: string;
  /** Optional int8 [N, L] token type ids. */
  readonly types?: string;
  /** Output .npy, float32 [end - start, hidden]. */
  readonly out: string;
  /** Rows to encode (default all). */
  readonly start?: number;
  readonly end?: number;
}

export interface EncodeFileResult {
  readonly rows: number;
  readonly dim: number;
  readonly providers: ExecutionProvider[];
  /** Why these execution providers (for logs and manifests). */
  readonly reason: string;
  /** The token matrix read (and validated) from `ids`, for callers that inspect the rows too. */
  readonly tokens: TokenMatrix;
}

/** Reads token ids (.npy), encodes rows [start, end), writes embeddings (.npy float32). */
export async function encodeNpyFile(p: EncodeFileParams): Promise<EncodeFileResult> {
  const tokens = tokenMatrixFromNpy(readNpy(p.ids), p.types !== undefined ? readNpy(p.types) : undefined, {
    ids: p.ids,
    ...(p.types !== undefined ? { types: p.types } : {}),
  });
  const range = { start: p.start ?? 0, end: p.end ?? tokens.rows };
  const enc = await openEncoder(p.model, p);
  try {
    const emb = await encodeRows(enc.session, tokens, range, { ...p, modelFile: p.model });
    writeNpy(p.out, { dtype: "float32", shape: [emb.rows, emb.dim], data: emb.data });
    return { rows: emb.rows, dim: emb.dim, providers: enc.providers, reason: enc.reason, tokens };
  } finally {
    await enc.session.release();
  }
}
