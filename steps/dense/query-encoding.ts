/**
 * Query token ids through a bi-encoder's `query_encoder.onnx` into `embeddings.npy`, with
 * `qids.txt`, `meta.json` and `empty_qids.txt` (queries whose rows hold only special tokens:
 * search gives them no hits). One body for every model kind whose directory holds a query
 * encoder (DPR's `encode-queries`, DCSR's `encode-dcsr-queries`), so both check the encoder's
 * ONNX parity fixture before encoding (encoding/onnx/parity.ts): a model whose
 * `query_encoder.onnx` differs from torch's output by PARITY_ATOL or more, or that has no
 * fixture, is refused (`parity: "if-present"` lets a user's ONNX files without one through).
 */
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";
import { encodeNpyFile } from "../encoding/onnx/encode.ts";
import type { EncoderSessionOptions } from "../encoding/onnx/session.ts";
import { PARITY_ATOL, verifyOnnxParityOfModel, type ParityPolicy } from "../encoding/onnx/parity.ts";
import { checkTokensFitModelDirs } from "../encoding/vocab-identity.ts";
import { emptyQueryRows } from "./empty-queries.ts";

/** Query ids whose token rows hold only special tokens (the query encoders write it; searches give them no hits). */
export const EMPTY_QIDS = "empty_qids.txt";

/** The lines of a text file, without the last empty one. */
export function readLines(path: string): string[] {
  const lines = readFileSync(path, "utf8").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** The pad, [CLS] and [SEP] ids from a token directory's meta.json. */
function specialTokenIds(tokensDir: string): Set<number> {
  const file = join(tokensDir, "meta.json");
  const meta = JSON.parse(readFileSync(file, "utf8")) as { specialIds?: Record<string, unknown> };
  const ids = ["pad", "cls", "sep"].map((k) => meta.specialIds?.[k]);
  if (!ids.every((v): v is number => Number.isInteger(v))) throw new InputError("specialIds.pad/cls/sep missing or not integers", { file, field: "specialIds", fix: "rerun tokenize-queries" });
  return new Set(ids);
}

export interface QueryEncoding {
  readonly model: string;
  readonly tokens: string;
  readonly out: string;
  readonly batchSize: number;
  readonly provider: NonNullable<EncoderSessionOptions["providers"]>;
  readonly threads: number;
  /** A model without parity fixtures: refused ("required", the default: every model the pipeline trains has them), or encoded with a note ("if-present"). */
  readonly parity?: ParityPolicy;
  readonly onProgress?: (done: number, total?: number) => void;
  readonly log: (line: string) => void;
}

export async function encodeQueryTokens(q: QueryEncoding): Promise<void> {
  q.log((await verifyOnnxParityOfModel(q.model, "query_encoder", { providers: q.provider, intraOpThreads: q.threads }, PARITY_ATOL, q.parity ?? "required")).note);
  checkTokensFitModelDirs(q.tokens, q.model);
  const qidsFile = join(q.tokens, "qids.txt");
  const qids = readLines(qidsFile);
  const r = await encodeNpyFile({
    model: join(q.model, "query_encoder.onnx"),
    ids: join(q.tokens, "ids.npy"),
    out: join(q.out, "embeddings.npy"),
    batchSize: q.batchSize,
    providers: q.provider,
    intraOpThreads: q.threads,
    ...(q.onProgress ? { onProgress: q.onProgress } : {}),
  });
  if (r.rows !== qids.length) throw new InputError(`${qids.length} qids for ${r.rows} token rows`, { file: qidsFile, fix: "rerun tokenize-queries" });
  copyFileSync(qidsFile, join(q.out, "qids.txt"));
  const empty = emptyQueryRows(r.tokens, specialTokenIds(q.tokens)).map((i) => qids[i]!);
  writeFileSync(join(q.out, EMPTY_QIDS), empty.map((id) => `${id}\n`).join(""), "utf8");
  writeFileSync(join(q.out, "meta.json"), JSON.stringify({ format: "cspipe/embeddings@1", kind: "queries", rows: r.rows, dim: r.dim, empty: empty.length }, null, 2) + "\n", "utf8");
  q.log(`${r.rows} queries (${empty.length} empty: no hits), dim ${r.dim}; providers ${r.providers.join(",")} (${r.reason})`);
}
