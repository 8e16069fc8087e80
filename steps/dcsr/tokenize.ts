/**
 * `tokenize-dcsr-passages`: the collection as DCSR's marker-token inputs (marker-tokens.ts),
 * padded `.npy` matrices like `tokenize-passages` writes, plus `markers.npy` (int32 [N,
 * maxMarkers], the marker positions of each row, -1 padded). Reads the passages and the
 * sentences table in lockstep (both are in collection order), so memory stays bounded.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { parquetLayout } from "../lib/parquet.ts";
import { NpyRowWriter } from "../encoding/format/npy-row-writer.ts";
import { spillRows, writeSpilledRows, type SpilledRows } from "../encoding/format/row-spill.ts";
import { readVocabFile } from "../encoding/tokenize/vocab.ts";
import { createBertTokenizer } from "../encoding/tokenize/bert-tokenizer.ts";
import { assembleMarkedPassage, DEFAULT_MAX_MARKERS } from "./marker-tokens.ts";
import { passagesWithSentences, type SentenceRow } from "./sentences.ts";
import type { PassageRow } from "../data/schemas.ts";

/** The DCSR-specific part of the token directory's meta.json. */
export interface DcsrTokensMeta {
  readonly marker: string;
  readonly markerId: number;
  readonly maxMarkers: number;
  readonly sentences: number;
  /** Sentences with a vector (their marker survived). */
  readonly marked: number;
  /** Sentences past the maxMarkers-th of their passage (no marker placed). */
  readonly pastMaxMarkers: number;
  /** Sentences whose marker truncation cut off. */
  readonly truncatedMarkers: number;
  /** Passages without any marker (no words, or every marker cut off): they cannot be retrieved. */
  readonly passagesWithoutMarkers: number;
  /** Positions outside the markers that hold the marker id (a text that spells the marker token). */
  readonly markerIdInText: number;
}

export const tokenizeDcsrPassages = defineStep({
  id: "tokenize-dcsr-passages",
  version: 1,
  source: import.meta.url,
  description: "Passages with one marker token before each sentence (up to maxMarkers) -> token ids, type ids and marker positions (.npy).",
  params: z
    .object({
      maxLength: z.number().int().min(3).max(4096),
      title: z.boolean(),
      segmentIds: z.enum(["zeros", "bert"]).default("zeros"),
      /** The marker token, looked up in the vocabulary (BERT: "[unused0]"). */
      marker: z.string().min(1),
      maxMarkers: z.number().int().min(1).max(512).default(DEFAULT_MAX_MARKERS),
    })
    .strict(),
  inputs: { passages: "parquet:passages", sentences: "parquet:sentences", vocab: "wordpiece:vocab" },
  outputs: { tokens: dir("tokens:dcsr-passages", "tokens") },
  cost: 3,
  runtime: {
    type: "in-process",
    async run(ctx) {
      const { maxLength, title, segmentIds, marker, maxMarkers } = ctx.params;
      const vocabFile = join(ctx.inputs.vocab, "vocab.txt");
      const vocab = readVocabFile(vocabFile);
      const markerId = vocab.index.get(marker);
      if (markerId === undefined) throw new InputError(`the vocabulary has no marker token ${JSON.stringify(marker)}`, { file: vocabFile, field: "marker", fix: "use a token of this vocabulary that never occurs in text (BERT: [unused0]; a trained mini vocabulary: [MASK])" });
      const encoder = createBertTokenizer(vocab);
      const { pad, unk, cls, sep } = encoder.special;
      if ([pad, unk, cls, sep].includes(markerId)) {
        throw new InputError(`marker ${marker} is a structural token ([PAD], [UNK], [CLS] or [SEP])`, { field: "marker", fix: "pick an unused token ([unused0]) or [MASK]" });
      }
      const total = (await parquetLayout(ctx.inputs.passages)).rows;
      const markers = new NpyRowWriter(join(ctx.outputs.tokens, "markers.npy"), "int32", maxMarkers);
      const stats = { sentences: 0, marked: 0, pastMaxMarkers: 0, truncatedMarkers: 0, passagesWithoutMarkers: 0, markerIdInText: 0, truncated: 0 };
      const tokenize = ({ passage, sentences }: { passage: PassageRow; sentences: readonly SentenceRow[] }) => {
        const useTitle = title && passage.title !== null && passage.title.trim() !== "";
        const seq = assembleMarkedPassage(useTitle ? encoder.encode(passage.title!) : null, sentences.map((s) => encoder.encode(s.text)), encoder.special, { marker: markerId, maxLength, maxMarkers, segmentIds });
        const row = new Int32Array(maxMarkers).fill(-1);
        row.set(seq.markers);
        markers.append(row);
        stats.sentences += sentences.length;
        stats.marked += seq.markers.length;
        stats.pastMaxMarkers += sentences.length - seq.placed;
        stats.truncatedMarkers += seq.placed - seq.markers.length;
        if (seq.markers.length === 0) stats.passagesWithoutMarkers++;
        stats.markerIdInText += seq.ids.filter((id) => id === markerId).length - seq.markers.length;
        if (seq.truncated) stats.truncated++;
        return { id: passage.id, seq };
      };
      let spilled: SpilledRows;
      try {
        spilled = await spillRows(passagesWithSentences(ctx.inputs.passages, ctx.inputs.sentences), tokenize, { spill: join(ctx.workDir, "rows.bin"), pids: join(ctx.outputs.tokens, "pids.txt") }, (done) => ctx.progress(done, total, "tokenize"));
      } finally {
        markers.close();
      }
      const { lengths, longest } = spilled;
      if (lengths.length === 0) throw new InputError("the passages table is empty", { file: ctx.inputs.passages, fix: "preprocess a collection first" });
      writeSpilledRows(ctx.outputs.tokens, spilled);
      const { truncated, ...counts } = stats;
      const dcsr: DcsrTokensMeta = { marker, markerId, maxMarkers, ...counts };
      const meta = {
        format: "cspipe/tokens@1",
        kind: "passages",
        rows: lengths.length,
        length: longest,
        maxLength,
        truncated,
        padId: 0,
        tokenizer: encoder.implementation,
        vocabSize: encoder.vocabSize,
        vocabDigest: encoder.vocabDigest,
        specialIds: { ...encoder.special },
        files: { ids: "ids.npy", typeIds: "type_ids.npy", markers: "markers.npy", rowIds: "pids.txt" },
        params: { title, segmentIds },
        dcsr,
      };
      writeFileSync(join(ctx.outputs.tokens, "meta.json"), JSON.stringify(meta, null, 2) + "\n", "utf8");
      ctx.log(`${lengths.length} passages, L=${longest} (max ${maxLength}), ${truncated} truncated; ${counts.marked} of ${counts.sentences} sentences marked (${counts.pastMaxMarkers} past marker ${maxMarkers}, ${counts.truncatedMarkers} cut off), ${counts.passagesWithoutMarkers} passages without a marker`);
    },
  },
});
