/**
 * T5's own pre-training, shrunk for the mini benchmark: the mini FiD starts from a tiny T5 that
 * has first learnt the language of the collection by span corruption (Raffel et al. 2020), as
 * FiD on real data starts from t5-base, instead of from random weights.
 * - `prepare-t5-span-corpus` (in-process): each passage as `title: <title> context: <text>`
 *   SentencePiece ids (no </s>; the trainer adds it after corrupting), cut to `length`; every
 *   `devEvery`-th passage (in the table's order) is held out for the trainer's dev loss.
 * - `pretrain-t5-span` (container: qa.fid.fid pretrain-span, span_trainer.py): the objective, the noise
 *   masks and the sentinels are span_corruption.py's numbered rules.
 * Its model is a FiD checkpoint (`qa:fid`, one context), so `train-fid` fine-tunes it as it
 * fine-tunes any earlier FiD model.
 */
import { writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir } from "../../../pipeline/engine/step.ts";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { canonicalJson } from "../../../pipeline/engine/canonical.ts";
import { readParquetRows } from "../../lib/parquet.ts";
import { writeNpy } from "../../lib/npy.ts";
import type { PassageRow } from "../../data/schemas.ts";
import { paramsShape } from "../config-schema.ts";
import { SPAN_FIELDS } from "./span-config.ts";
import { loadT5Tokenizer, type T5Tokenizer } from "./t5-tokenizer.ts";
import { fidRuntime, t5Config, writePieces } from "./steps.ts";

/** One passage's ids for span corruption: `title: <title> context: <text>` (no title part when it has none), cut to `length`. */
export function spanCorpusRow(tok: T5Tokenizer, title: string | null, text: string, length: number): number[] {
  const ids = title !== null && title !== "" ? tok.encode(`title: ${title}`) : [];
  ids.push(...tok.encode("context:"), ...tok.encode(text));
  return ids.slice(0, length);
}

/** Whether the i-th passage (0-based, table order) is a dev row: every `devEvery`-th, the last of each group. */
export const isDevRow = (i: number, devEvery: number): boolean => i % devEvery === devEvery - 1;

export const prepareT5SpanCorpus = defineStep({
  id: "prepare-t5-span-corpus",
  version: 1,
  source: import.meta.url,
  description: "A collection's passages as SentencePiece ids for T5's span-corruption pre-training, every devEvery-th held out.",
  params: z
    .object({
      length: z.number().int().min(2).default(128),
      devEvery: z.number().int().min(2).default(50),
      /** The first N passages of the table only (0 = all): the smoke profile's shortcut. */
      maxPassages: z.number().int().min(0).default(0),
    })
    .strict(),
  inputs: { passages: "parquet:passages", spm: "spm:model" },
  outputs: { corpus: dir("qa:t5-span-corpus", "corpus") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const p = ctx.params;
      const tok = loadT5Tokenizer(join(ctx.inputs.spm, "spiece.model"));
      const rows: { train: number[][]; dev: number[][] } = { train: [], dev: [] };
      let i = 0;
      let short = 0;
      for await (const row of readParquetRows<PassageRow>(ctx.inputs.passages)) {
        if (p.maxPassages > 0 && i >= p.maxPassages) break;
        const ids = spanCorpusRow(tok, row.title, row.text, p.length);
        if (ids.length < 2) short++;
        else (isDevRow(i, p.devEvery) ? rows.dev : rows.train).push(ids);
        i++;
      }
      if (rows.train.length === 0) throw new InputError("no passage of 2 or more tokens to pre-train on", { file: ctx.inputs.passages });
      for (const split of ["train", "dev"] as const) {
        mkdirSync(join(ctx.outputs.corpus, split), { recursive: true });
        const m = new Int32Array(rows[split].length * p.length);
        rows[split].forEach((ids, r) => m.set(ids, r * p.length));
        writeNpy(join(ctx.outputs.corpus, split, "tokens.npy"), { dtype: "int32", shape: [rows[split].length, p.length], data: m });
      }
      writePieces(tok, ctx.outputs.corpus);
      const meta = { format: "cspipe/t5-span-corpus@1", vocabDigest: tok.vocabDigest, vocabSize: tok.vocabSize, padId: tok.padId, eosId: tok.eosId, length: p.length, train: rows.train.length, dev: rows.dev.length, skippedShort: short };
      writeFileSync(join(ctx.outputs.corpus, "meta.json"), canonicalJson(meta, 2) + "\n");
      ctx.log(`${rows.train.length} train and ${rows.dev.length} dev passages of up to ${p.length} tokens${short > 0 ? `; ${short} under 2 tokens skipped` : ""}`);
    },
  },
});

const { threads: _threads, world_size: _world, ...spanConfig } = paramsShape(SPAN_FIELDS);

export const pretrainT5Span = defineStep({
  id: "pretrain-t5-span",
  version: 1,
  source: import.meta.url,
  description: "Pre-train a random tiny T5 by span corruption; the epoch with the lowest dev loss is kept.",
  params: z.object({ ...spanConfig, init: z.object({ kind: z.literal("random"), t5_config: t5Config }).strict() }).strict(),
  inputs: { corpus: "qa:t5-span-corpus" },
  outputs: { model: dir("qa:fid", "fid") },
  runtime: fidRuntime(["pretrain-span", "--config", "{params}", "--inputs", "{in:corpus}", "--out", "{out:model}"], "optional"),
  cost: (p: { epochs: number }) => 10 + 40 * p.epochs,
});
