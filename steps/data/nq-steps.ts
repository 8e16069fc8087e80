/**
 * Preprocessing of NQ-style standalone questions (mini-nq here; DPR's NQ files on real
 * data) into the normalized tables, for pre-training the mini benchmark's θ0.
 */
import { writeFile } from "node:fs/promises";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep } from "../../pipeline/engine/step.ts";
import { logWarnings, PREPROCESS_OUTPUTS } from "./preprocess/step-outputs.ts";
import { canonicalJson } from "../../pipeline/engine/canonical.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { preprocessNq } from "./preprocess/nq.ts";
import { checkedCounts } from "./preprocess/common.ts";

/** Turn files by split and the collection, by name under the raw directory. */
const NQ_TURN_FILES: Readonly<Record<string, readonly string[]>> = {
  train: ["nq-train.jsonl", "biencoder-nq-train.json"],
  dev: ["nq-dev.jsonl", "biencoder-nq-dev.json"],
};
const NQ_COLLECTION = "psgs_w100.tsv";

export function locateNq(root: string): { turnsFiles: Record<string, string>; collectionFiles: string[] } {
  const names = new Set(readdirSync(root));
  const turnsFiles: Record<string, string> = {};
  for (const [split, candidates] of Object.entries(NQ_TURN_FILES)) {
    const hit = candidates.find((c) => names.has(c));
    if (hit === undefined) throw new InputError(`no ${split} question file`, { file: root, fix: `place one of ${candidates.join(", ")} in the directory` });
    turnsFiles[split] = join(root, hit);
  }
  if (!names.has(NQ_COLLECTION)) throw new InputError("no passage collection", { file: root, fix: `place ${NQ_COLLECTION} (id, text, title TSV) in the directory` });
  return { turnsFiles, collectionFiles: [join(root, NQ_COLLECTION)] };
}

export const preprocessNqStep = defineStep({
  id: "preprocess-nq",
  version: 1,
  source: import.meta.url,
  description: "Parse NQ-style standalone questions and their passages into turns/passages/qrels Parquet.",
  params: z.object({ allowMissingGold: z.boolean().default(false), rowGroupRows: z.number().int().positive().default(65_536) }).strict(),
  inputs: { raw: "raw:nq" },
  outputs: PREPROCESS_OUTPUTS,
  runtime: {
    type: "in-process",
    async run(ctx) {
      const located = locateNq(ctx.inputs.raw);
      const outDir = join(ctx.outputs.turns, "..");
      const { allowMissingGold, ...params } = ctx.params;
      const result = await preprocessNq({ ...located, outDir, params: { ...params, strict: !allowMissingGold }, onProgress: ctx.progress });
      logWarnings(ctx.log, result.warnings);
      await writeFile(ctx.outputs.report, canonicalJson({ dataset: "nq", counts: checkedCounts(result, located), warnings: result.warnings }, 2) + "\n");
    },
  },
});
