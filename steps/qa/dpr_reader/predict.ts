/**
 * The DPR reader answering in Node (onnxruntime-node, no Python): per question, its top
 * `topDocs` passages are read in one batch, the passage with the best selection logit is
 * picked and its best span becomes the answer (span-selection.ts).
 */
import { existsSync } from "node:fs";
import * as ort from "onnxruntime-node";
import { InputError } from "../../../pipeline/engine/errors.ts";
import type { TokenEncoder } from "../../encoding/tokenize/encoder.ts";
import { chooseProviders, probeProviders } from "../../encoding/onnx/session.ts";
import type { ReaderExample } from "../reader-data.ts";
import { pairInput, passageTokens, questionTokens, type ReaderPassageTokens } from "./inputs.ts";
import { bestPassage, bestSpan } from "./span-selection.ts";

export const READER_INPUTS = ["input_ids", "attention_mask"] as const;
export const READER_OUTPUTS = ["start_logits", "end_logits", "relevance_logits"] as const;

export interface ReaderSettings {
  readonly maxLength: number;
  readonly maxQuestionLength: number;
  readonly maxAnswerLength: number;
  readonly topDocs: number;
}

export interface ReaderPrediction {
  readonly qid: string;
  readonly prediction: string;
  readonly pid: string | null;
  readonly rank: number | null;
  readonly score: number | null;
}

export async function openReader(path: string, intraOpThreads?: number): Promise<ort.InferenceSession> {
  if (!existsSync(path)) throw new InputError("reader ONNX model not found", { file: path, fix: "train the reader first (reader.onnx)" });
  const { providers } = chooseProviders("auto", probeProviders());
  const session = await ort.InferenceSession.create(path, { executionProviders: providers, graphOptimizationLevel: "all", interOpNumThreads: 1, ...(intraOpThreads !== undefined ? { intraOpNumThreads: intraOpThreads } : {}) });
  const ok = READER_INPUTS.every((n) => session.inputNames.includes(n)) && READER_OUTPUTS.every((n) => session.outputNames.includes(n));
  if (!ok) {
    await session.release();
    throw new InputError(`model inputs [${session.inputNames.join(", ")}] / outputs [${session.outputNames.join(", ")}] do not follow the reader contract`, { file: path, fix: `export with inputs ${READER_INPUTS.join(", ")} and outputs ${READER_OUTPUTS.join(", ")}` });
  }
  return session;
}

/** start, end [n, L] and relevance [n] logits of padded rows. */
export async function runReader(session: ort.InferenceSession, rows: readonly (readonly number[])[]): Promise<{ start: Float32Array; end: Float32Array; relevance: Float32Array; width: number }> {
  const width = Math.max(...rows.map((r) => r.length));
  const ids = new BigInt64Array(rows.length * width);
  const mask = new BigInt64Array(rows.length * width);
  rows.forEach((r, i) => r.forEach((t, j) => {
    ids[i * width + j] = BigInt(t);
    mask[i * width + j] = 1n;
  }));
  const out = await session.run({ input_ids: new ort.Tensor("int64", ids, [rows.length, width]), attention_mask: new ort.Tensor("int64", mask, [rows.length, width]) });
  return { start: out["start_logits"]!.data as Float32Array, end: out["end_logits"]!.data as Float32Array, relevance: out["relevance_logits"]!.data as Float32Array, width };
}

export async function predictOne(session: ort.InferenceSession, encoder: TokenEncoder, ex: ReaderExample, s: ReaderSettings, cache?: Map<string, ReaderPassageTokens>): Promise<ReaderPrediction> {
  const passages = ex.passages.slice(0, s.topDocs);
  if (passages.length === 0) return { qid: ex.qid, prediction: "", pid: null, rank: null, score: null };
  const q = questionTokens(encoder, ex, s.maxQuestionLength);
  const toks = passages.map((p) => {
    let t = cache?.get(p.pid);
    if (t === undefined) {
      t = passageTokens(encoder, p.title, p.text, s.maxLength - 2);
      cache?.set(p.pid, t);
    }
    return t;
  });
  const pairs = toks.map((t) => pairInput(q, t, s.maxLength, encoder.special.sep));
  const { start, end, relevance, width } = await runReader(session, pairs.map((p) => p.ids));
  const b = bestPassage(relevance);
  const pair = pairs[b]!;
  const rowLen = pair.ids.length - pair.offset;
  // The row as the model saw it: a cut row ends in [SEP], which is not text.
  const seen: ReaderPassageTokens = rowLen < toks[b]!.ids.length ? { ...toks[b]!, wordOfToken: [...toks[b]!.wordOfToken.slice(0, rowLen - 1), -1] } : toks[b]!;
  const at = b * width + pair.offset;
  const span = bestSpan(start.subarray(at, at + rowLen), end.subarray(at, at + rowLen), seen, s.maxAnswerLength);
  return { qid: ex.qid, prediction: span?.text ?? "", pid: passages[b]!.pid, rank: passages[b]!.rank, score: span?.score ?? null };
}
