/**
 * `assemble-dcsr-examples`: the DCSR trainer's input directory (steps/dcsr/README.md) from
 * the tokenized queries, the marker-token collection, the turns, the answer-sentence labels,
 * mined negatives (BM25 passages, or sentences mined by a DCSR model) and, when given, the dev
 * collection (otherwise sampled). One def per negative kind, so the wiring stays typed.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { defineStep, dir, optional, type InputKinds } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { canonicalJson } from "../../pipeline/engine/canonical.ts";
import { writeNpy } from "../lib/npy.ts";
import { readNpyRows } from "../lib/npy-rows.ts";
import { readNegatives } from "../mining/steps.ts";
import { buildExamples } from "../training/examples.ts";
import { assembleParams, readGold, readLines, writeRows } from "../training/assemble-common.ts";
import { sameVocabulary, tokensVocab } from "../encoding/vocab-identity.ts";
import { buildDcsrExamples } from "./examples.ts";
import { readAnswerSentences } from "./label-step.ts";
import { readSentenceNegatives } from "./mining.ts";

/** Marked slots per passage row, for the rows asked (markers.npy: int32 [N, maxMarkers], -1 padded). */
function markedCounts(markersFile: string, rows: readonly number[]): { counts: Map<number, number>; maxMarkers: number } {
  const unique = [...new Set(rows)].sort((a, b) => a - b);
  const { header, bytes } = readNpyRows(markersFile, unique);
  if (header.dtype !== "int32") throw new InputError(`markers must be int32, got ${header.dtype}`, { file: markersFile, fix: "rerun tokenize-dcsr-passages" });
  const data = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const counts = new Map<number, number>();
  unique.forEach((r, i) => {
    let n = 0;
    for (let s = 0; s < header.cols; s++) if (data[i * header.cols + s]! >= 0) n++;
    counts.set(r, n);
  });
  return { counts, maxMarkers: header.cols };
}

type NegativeKind = "passages" | "sentences";
const NEGATIVE_INPUT = { passages: "parquet:negatives", sentences: "parquet:sentence-negatives" } as const;

function makeDef<I extends InputKinds>(id: string, inputs: I, negatives: NegativeKind) {
  return defineStep({
    id,
    version: 1,
    source: import.meta.url,
    description: "The DCSR trainer's input files: examples (positive sentence labels, gold, mined negatives), dev queries and the dev collection with its markers.",
    params: assembleParams,
    inputs,
    outputs: { examples: dir("dcsr:examples", "examples") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const p = ctx.params;
        const inp = ctx.inputs as Readonly<Record<string, string>>;
        const vocabDigest = sameVocabulary([inp.passages!, inp.trainQueries!, inp.devQueries!].map(tokensVocab));
        const { trainGold, devGold } = await readGold(inp.turns!, p.trainSplit, p.devSplit);
        const pids = await readLines(join(inp.passages!, "pids.txt"));
        const rowOf = new Map(pids.map((pid, i) => [pid, i]));
        const trainQids = await readLines(join(inp.trainQueries!, "qids.txt"));
        const devQids = await readLines(join(inp.devQueries!, "qids.txt"));
        const devCollection = inp.devCollection === undefined ? undefined : await readLines(inp.devCollection);
        const passageNegatives = negatives === "passages" ? await readNegatives(inp.negatives!) : undefined;
        const base = buildExamples({ trainQids, devQids, trainGold, devGold, rowOf, passages: pids.length, k: p.k, devPassages: p.devPassages, seed: p.seed, ...(passageNegatives ? { negatives: passageNegatives } : {}), ...(devCollection ? { devCollection } : {}) });
        const labels = await readAnswerSentences(inp.labels!);
        const markersFile = join(inp.passages!, "markers.npy");
        const wanted = [...labels.values()].map((l) => rowOf.get(l.pid)).filter((r): r is number => r !== undefined);
        const { counts: marked, maxMarkers } = markedCounts(markersFile, wanted);
        const sentenceNegatives = negatives === "sentences" ? await readSentenceNegatives(inp.negatives!) : undefined;
        const ex = buildDcsrExamples({ base, trainQids, labels, rowOf, markedCount: (r) => marked.get(r) ?? 0, maxMarkers, k: p.k, ...(sentenceNegatives ? { sentenceNegatives } : {}) });
        if (ex.trainRows.length === 0) throw new InputError("no training turn has a located answer sentence with a vector", { file: inp.labels!, fix: "check the answer-sentence report and the tokenizer's marker counts" });
        if (base.devRows.length === 0) throw new InputError(`no '${p.devSplit}' turn has a gold passage in the collection`, { file: inp.turns!, field: "devSplit" });
        const out = ctx.outputs.examples;
        writeRows(join(inp.trainQueries!, "ids.npy"), ex.trainRows, join(out, "train_query_ids.npy"));
        writeNpy(join(out, "train_pos.npy"), { dtype: "int32", shape: [ex.pos.length], data: ex.pos });
        writeNpy(join(out, "train_labels.npy"), { dtype: "int8", shape: [ex.pos.length, ex.labels.cols], data: ex.labels.data });
        writeNpy(join(out, "train_gold.npy"), { dtype: "int32", shape: [ex.pos.length, ex.gold.cols], data: ex.gold.data });
        if (ex.neg) writeNpy(join(out, "train_neg.npy"), { dtype: "int32", shape: [ex.pos.length, ex.neg.cols], data: ex.neg.data });
        if (ex.negSentences) {
          writeNpy(join(out, "train_neg_sentence_rows.npy"), { dtype: "int32", shape: [ex.pos.length, ex.negSentences.cols], data: ex.negSentences.rows });
          writeNpy(join(out, "train_neg_sentence_slots.npy"), { dtype: "int32", shape: [ex.pos.length, ex.negSentences.cols], data: ex.negSentences.slots });
        }
        writeRows(join(inp.devQueries!, "ids.npy"), base.devRows, join(out, "dev_query_ids.npy"));
        writeRows(join(inp.passages!, "ids.npy"), base.devPassageRows, join(out, "dev_passage_ids.npy"));
        writeRows(join(inp.passages!, "type_ids.npy"), base.devPassageRows, join(out, "dev_passage_type_ids.npy"));
        writeRows(markersFile, base.devPassageRows, join(out, "dev_markers.npy"));
        writeNpy(join(out, "dev_gold.npy"), { dtype: "int32", shape: [base.devRows.length, base.devGold.cols], data: base.devGold.data });
        const counts = { ...base.counts, ...ex.counts };
        await writeFile(join(out, "meta.json"), canonicalJson({ counts, negatives, k: p.k, maxMarkers, devPassages: p.devPassages, seed: p.seed, ...(vocabDigest ? { vocabDigest } : {}) }, 2) + "\n");
        ctx.log(Object.entries(counts).map(([key, v]) => `${key}=${v}`).join(" "));
      },
    },
  });
}

const baseInputs = { trainQueries: "tokens:queries", devQueries: "tokens:queries", passages: "tokens:dcsr-passages", turns: "parquet:turns", labels: "parquet:answer-sentences", devCollection: optional("ids:passages") } as const;

/** With BM25 (or any miner's) negative passages; with a devCollection input (released, or BM25-hard) or a sampled one. */
export const assembleDcsrExamples = makeDef("assemble-dcsr-examples", { ...baseInputs, negatives: NEGATIVE_INPUT.passages }, "passages");
/** With sentences mined by a DCSR model (DCSR x IHN); the dev collection as above. */
export const assembleDcsrExamplesMined = makeDef("assemble-dcsr-examples-mined", { ...baseInputs, negatives: NEGATIVE_INPUT.sentences }, "sentences");
