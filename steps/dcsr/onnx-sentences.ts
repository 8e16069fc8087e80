/**
 * Running DCSR's passage encoder (ONNX, onnxruntime-node): one pass over a passage gives
 * the vectors of all its sentences. The graph's contract (written by
 * steps/dcsr/python/dcsr_model.py): inputs `input_ids`, `attention_mask`, `token_type_ids`
 * (int64 [batch, seq]) and `marker_positions` (int64 [batch, markers], -1 = no sentence);
 * output `sentence_embeddings` (float32 [batch, markers, hidden]): the last hidden state at
 * each marker position (rows of -1 positions hold the [CLS] state and are dropped here).
 *
 * Parity: opening the encoder runs the export's fixture (`parity/sentence_encoder/`: the four
 * inputs and torch's `sentence_embeddings`) through the session, with the DPR encoders' check
 * (encoding/onnx/parity.ts), and refuses a graph that differs from torch by PARITY_ATOL or
 * more, or has no fixture, before anything is encoded.
 */
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import * as ort from "onnxruntime-node";
import { InputError } from "../../pipeline/engine/errors.ts";
import { makeBatch, type TokenMatrix } from "../encoding/onnx/batch.ts";
import { chooseProviders, probeProviders, type EncoderSessionOptions, type ExecutionProvider } from "../encoding/onnx/session.ts";
import { batchRanges, type RowRange } from "../encoding/onnx/shards.ts";
import { PARITY_ATOL, verifyParity, type ParityCheck, type ParityContract, type ParityPolicy } from "../encoding/onnx/parity.ts";

export const SENTENCE_ENCODER_INPUTS = ["input_ids", "attention_mask", "token_type_ids", "marker_positions"] as const;
export const SENTENCE_ENCODER_OUTPUT = "sentence_embeddings";
export const SENTENCE_ENCODER_FILE = "sentence_encoder.onnx";

/** The sentence encoder's parity fixture: `parity/sentence_encoder/` (steps/dcsr/python/dcsr_model.py writes it beside the graph). */
export const SENTENCE_PARITY: ParityContract = { name: "sentence_encoder", inputs: SENTENCE_ENCODER_INPUTS, output: SENTENCE_ENCODER_OUTPUT };

export interface SentenceEncoder {
  readonly session: ort.InferenceSession;
  readonly providers: ExecutionProvider[];
  readonly reason: string;
  /** The parity fixture's result on this session (its note says what was checked). */
  readonly parity: ParityCheck;
}

export interface SentenceEncoderOptions extends EncoderSessionOptions {
  /** A model without the fixture: refused ("required", the default: the DCSR trainer always writes it), or opened with a note ("if-present"). */
  readonly parity?: ParityPolicy;
}

/** Opens `<dir>/sentence_encoder.onnx`, checks its input and output names, then its parity fixture in `<dir>/parity/sentence_encoder/`. */
export async function openSentenceEncoder(modelPath: string, opts: SentenceEncoderOptions = {}): Promise<SentenceEncoder> {
  if (!existsSync(modelPath)) throw new InputError("ONNX sentence encoder not found", { file: modelPath, fix: "train a DCSR model (train-dcsr) first" });
  const { providers, reason } = chooseProviders(opts.providers ?? "auto", probeProviders());
  const session = await ort.InferenceSession.create(modelPath, {
    executionProviders: providers,
    graphOptimizationLevel: "all",
    interOpNumThreads: 1,
    ...(opts.intraOpThreads !== undefined ? { intraOpNumThreads: opts.intraOpThreads } : {}),
  });
  const missing = SENTENCE_ENCODER_INPUTS.filter((n) => !session.inputNames.includes(n));
  if (missing.length > 0 || !session.outputNames.includes(SENTENCE_ENCODER_OUTPUT)) {
    await session.release();
    throw new InputError(`model inputs [${session.inputNames.join(", ")}] / outputs [${session.outputNames.join(", ")}] do not follow the sentence-encoder contract`, {
      file: modelPath,
      fix: `export with inputs ${SENTENCE_ENCODER_INPUTS.join(", ")} and output ${SENTENCE_ENCODER_OUTPUT} (steps/dcsr/python/dcsr_model.py)`,
    });
  }
  try {
    const parity = await verifyParity(session, dirname(modelPath), SENTENCE_PARITY, { onnxFile: modelPath, atol: PARITY_ATOL, policy: opts.parity ?? "required" });
    return { session, providers, reason, parity };
  } catch (e) {
    await session.release();
    throw e;
  }
}

/** Marker positions [rows, markers] (row-major, -1 padded). */
export interface MarkerMatrix {
  readonly rows: number;
  readonly markers: number;
  readonly positions: Int32Array;
}

export interface SentenceVectors {
  readonly dim: number;
  /** [count, dim], in (row, slot) order. */
  readonly vectors: Float32Array;
  /** For each vector: its token row (relative to the range start) and marker slot. */
  readonly rows: Int32Array;
  readonly slots: Int32Array;
}

/** Sentence vectors of rows [range.start, range.end) of `tokens`, in row then slot order. */
export async function encodeSentences(session: ort.InferenceSession, tokens: TokenMatrix, markers: MarkerMatrix, range: RowRange, opts: { batchSize?: number; modelFile?: string; onProgress?: (done: number, total?: number) => void } = {}): Promise<SentenceVectors> {
  if (markers.rows !== tokens.rows) throw new InputError(`${markers.rows} marker rows for ${tokens.rows} token rows`, { field: "markers", fix: "rerun tokenize-dcsr-passages" });
  const M = markers.markers;
  let count = 0;
  for (let r = range.start; r < range.end; r++) for (let s = 0; s < M; s++) if (markers.positions[r * M + s]! >= 0) count++;
  const rowsOut = new Int32Array(count);
  const slotsOut = new Int32Array(count);
  let vectors = new Float32Array(0);
  let dim = -1;
  let k = 0;
  let done = 0;
  for (const br of batchRanges(range, opts.batchSize ?? 64)) {
    const b = makeBatch(tokens, br, true);
    const pos = new BigInt64Array(b.batch * M);
    for (let i = 0; i < b.batch; i++) {
      for (let s = 0; s < M; s++) {
        const p = markers.positions[(br.start + i) * M + s]!;
        if (p >= b.seq) throw new InputError(`marker at position ${p} of row ${br.start + i} is past its tokens`, { field: "markers", fix: "rerun tokenize-dcsr-passages" });
        pos[i * M + s] = BigInt(p);
      }
    }
    const shape = [b.batch, b.seq];
    const result = await session.run({
      input_ids: new ort.Tensor("int64", b.inputIds, shape),
      attention_mask: new ort.Tensor("int64", b.attentionMask, shape),
      token_type_ids: new ort.Tensor("int64", b.tokenTypeIds, shape),
      marker_positions: new ort.Tensor("int64", pos, [b.batch, M]),
    });
    const out = result[SENTENCE_ENCODER_OUTPUT];
    if (out === undefined || out.type !== "float32" || out.dims.length !== 3 || out.dims[0] !== b.batch || out.dims[1] !== M) {
      throw new InputError(`output "${SENTENCE_ENCODER_OUTPUT}" must be float32 [batch, ${M}, hidden], got ${out?.type} [${out?.dims.join(", ")}]`, {
        ...(opts.modelFile !== undefined ? { file: opts.modelFile } : {}),
        fix: "re-export the sentence encoder with the contract's output",
      });
    }
    if (dim < 0) {
      dim = out.dims[2]!;
      vectors = new Float32Array(count * dim);
    }
    const data = out.data as Float32Array;
    for (let i = 0; i < b.batch; i++) {
      for (let s = 0; s < M; s++) {
        if (markers.positions[(br.start + i) * M + s]! < 0) continue;
        vectors.set(data.subarray((i * M + s) * dim, (i * M + s + 1) * dim), k * dim);
        rowsOut[k] = br.start + i - range.start;
        slotsOut[k] = s;
        k++;
      }
    }
    for (const t of Object.values(result)) t.dispose();
    done += b.batch;
    opts.onProgress?.(done, range.end - range.start);
  }
  return { dim: Math.max(dim, 0), vectors, rows: rowsOut, slots: slotsOut };
}
