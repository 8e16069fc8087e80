/**
 * DCSR encoding steps:
 * - `encode-dcsr-sentences`: one shard of the marker-token collection through the ONNX
 *   sentence encoder -> a faiss IndexFlatIP file of its sentence vectors (one row per
 *   sentence with a marker, in passage then slot order) with `pids.txt` and `slots.npy`
 *   naming each row. Encoding writes the index directly: a sentence index is 3-5x a passage
 *   index, and a second copy of it as embeddings.npy would buy nothing.
 * - `encode-dcsr-queries`: queries through the DCSR query encoder (the [CLS] vector, as θ0's),
 *   written like `encode-queries` writes DPR's (embeddings.npy, qids.txt, empty_qids.txt).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { writeNpy } from "../lib/npy.ts";
import { readNpyRowRange } from "../lib/npy-rows.ts";
import { tokenMatrixFromNpy } from "../encoding/onnx/batch.ts";
import { splitRows } from "../encoding/onnx/shards.ts";
import { checkTokensFitModelDirs } from "../encoding/vocab-identity.ts";
import { writeFlatIPFile } from "../dense/faiss-index.ts";
import { encodeQueryTokens, readLines } from "../dense/query-encoding.ts";
import { encodeSentences, openSentenceEncoder, SENTENCE_ENCODER_FILE } from "./onnx-sentences.ts";

export const SENTENCE_INDEX_FILE = "index.faiss";

const encodeParams = {
  batchSize: z.number().int().positive().default(64),
  provider: z.enum(["auto", "cpu", "cuda"]).default("auto"),
  threads: z.number().int().positive().default(1),
};


/** The model's marker contract (config.json `cspipe.max_markers`) must match the tokens' (meta.json `dcsr.maxMarkers`). */
function checkMarkers(tokensDir: string, modelDir: string): void {
  const meta = JSON.parse(readFileSync(join(tokensDir, "meta.json"), "utf8")) as { dcsr?: { markerId?: number; maxMarkers?: number } };
  const config = JSON.parse(readFileSync(join(modelDir, "config.json"), "utf8")) as { cspipe?: { marker_id?: number; max_markers?: number } };
  const t = meta.dcsr;
  const m = config.cspipe;
  if (t === undefined) throw new InputError("not a DCSR token directory (no dcsr section)", { file: join(tokensDir, "meta.json"), fix: "tokenize with tokenize-dcsr-passages" });
  if (m?.marker_id !== undefined && m.marker_id !== t.markerId) {
    throw new InputError(`the tokens' marker id ${t.markerId} differs from the model's ${m.marker_id}`, { file: join(tokensDir, "meta.json"), field: "dcsr.markerId", fix: "tokenize with the marker the model was trained with" });
  }
}

export const encodeDcsrSentences = defineStep({
  id: "encode-dcsr-sentences",
  version: 1,
  source: import.meta.url,
  description: "One shard of the marker-token passages through DCSR's sentence encoder (ONNX) -> a flat inner-product index of its sentence vectors.",
  params: z
    .object({ shard: z.number().int().min(0), shards: z.number().int().min(1), ...encodeParams })
    .strict()
    .refine((p) => p.shard < p.shards, { message: "shard must be < shards", path: ["shard"] }),
  inputs: { model: "dcsr:model", tokens: "tokens:dcsr-passages" },
  outputs: { index: dir("faiss:sentence-flat-ip", "index") },
  cost: 5,
  runtime: {
    type: "in-process",
    async run(ctx) {
      const { shard, shards, batchSize, provider, threads } = ctx.params;
      checkTokensFitModelDirs(ctx.inputs.tokens, ctx.inputs.model);
      checkMarkers(ctx.inputs.tokens, ctx.inputs.model);
      const idsFile = join(ctx.inputs.tokens, "ids.npy");
      const typesFile = join(ctx.inputs.tokens, "type_ids.npy");
      const markersFile = join(ctx.inputs.tokens, "markers.npy");
      const n = readNpyRowRange(idsFile, 0, 0).totalRows;
      const range = splitRows(n, shards)[shard]!;
      if (range.end === range.start) throw new InputError(`shard ${shard} of ${shards} has no rows (${n} passages)`, { field: "shards", fix: "use fewer shards than passages" });
      const pids = readLines(join(ctx.inputs.tokens, "pids.txt"));
      if (pids.length !== n) throw new InputError(`${pids.length} passage ids for ${n} token rows`, { file: join(ctx.inputs.tokens, "pids.txt"), fix: "rerun tokenize-dcsr-passages" });
      const tokens = tokenMatrixFromNpy(readNpyRowRange(idsFile, range.start, range.end), readNpyRowRange(typesFile, range.start, range.end), { ids: idsFile, types: typesFile });
      const m = readNpyRowRange(markersFile, range.start, range.end);
      if (!(m.data instanceof Int32Array)) throw new InputError("markers must be int32", { file: markersFile });
      const markers = { rows: m.shape[0]!, markers: m.shape[1]!, positions: m.data };
      const modelFile = join(ctx.inputs.model, SENTENCE_ENCODER_FILE);
      const enc = await openSentenceEncoder(modelFile, { providers: provider, intraOpThreads: threads });
      ctx.log(enc.parity.note);
      ctx.log(`shard ${shard}/${shards}: passages [${range.start}, ${range.end}) of ${n}; providers ${enc.providers.join(",")} (${enc.reason})`);
      try {
        const s = await encodeSentences(enc.session, tokens, markers, { start: 0, end: tokens.rows }, { batchSize, modelFile, onProgress: ctx.progress });
        if (s.rows.length === 0) throw new InputError(`shard ${shard} has no sentence with a marker`, { file: markersFile, fix: "check the tokenizer's marker counts (meta.json dcsr)" });
        writeFlatIPFile(join(ctx.outputs.index, SENTENCE_INDEX_FILE), s.vectors, s.dim);
        writeFileSync(join(ctx.outputs.index, "pids.txt"), Array.from(s.rows, (r) => `${pids[range.start + r]}\n`).join(""), "utf8");
        writeNpy(join(ctx.outputs.index, "slots.npy"), { dtype: "int32", shape: [s.slots.length], data: s.slots });
        const meta = { format: "cspipe/sentence-index@1", shard, shards, start: range.start, end: range.end, passages: range.end - range.start, sentences: s.rows.length, dim: s.dim };
        writeFileSync(join(ctx.outputs.index, "meta.json"), JSON.stringify(meta, null, 2) + "\n", "utf8");
        ctx.log(`${range.end - range.start} passages -> ${s.rows.length} sentence vectors of dim ${s.dim}`);
      } finally {
        await enc.session.release();
      }
    },
  },
});


export const encodeDcsrQueries = defineStep({
  id: "encode-dcsr-queries",
  version: 1,
  source: import.meta.url,
  description: "Query token ids through DCSR's query encoder (ONNX) -> float32 embeddings.",
  params: z.object(encodeParams).strict(),
  inputs: { model: "dcsr:model", tokens: "tokens:queries" },
  outputs: { embeddings: dir("embeddings:queries", "embeddings") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const { batchSize, provider, threads } = ctx.params;
      await encodeQueryTokens({ model: ctx.inputs.model, tokens: ctx.inputs.tokens, out: ctx.outputs.embeddings, batchSize, provider, threads, onProgress: ctx.progress, log: ctx.log });
    },
  },
});
