/**
 * Data steps: generate a mini dataset in its native format, preprocess a native dataset
 * directory into the normalized Parquet tables. One def per dataset (from a registry of
 * factories), so wiring is typed: `raw:qrecc` only feeds `preprocess-qrecc`.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir } from "../../pipeline/engine/step.ts";
import { writeMiniDataset } from "./mini/index.ts";
import { logWarnings, PREPROCESS_OUTPUTS } from "./preprocess/step-outputs.ts";
import type { MiniDatasetName } from "./mini/index.ts";
import { preprocessorFor } from "./preprocess/registry.ts";
import { checkedCounts } from "./preprocess/common.ts";
import { locateDataset } from "./layout.ts";
import type { DatasetName } from "./schemas.ts";
import { canonicalJson } from "../../pipeline/engine/canonical.ts";

export const DATASETS = ["qrecc", "topiocqa", "orquac"] as const satisfies readonly DatasetName[];

const miniOverrides = z
  .object({
    seed: z.number().int().optional(),
    entities: z.number().int().positive().optional(),
    scale: z.number().int().nonnegative().optional(),
    trainTurns: z.number().int().nonnegative().optional(),
    devTurns: z.number().int().nonnegative().optional(),
    testTurns: z.number().int().nonnegative().optional(),
    standaloneTrain: z.number().int().nonnegative().optional(),
    standaloneDev: z.number().int().nonnegative().optional(),
  })
  .strict();

function generateMiniDef<K extends string>(dataset: MiniDatasetName, kind: K) {
  return defineStep({
    id: `generate-${dataset}`,
    version: 1,
    source: import.meta.url,
    description: `Write the seeded ${dataset} benchmark in its native format.`,
    params: miniOverrides,
    inputs: {},
    outputs: { raw: dir(kind, "raw") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const overrides = Object.fromEntries(Object.entries(ctx.params).filter(([, v]) => v !== undefined));
        const r = await writeMiniDataset(dataset, overrides, ctx.outputs.raw, { onProgress: ctx.progress });
        ctx.log(`wrote ${r.files.length} files`);
      },
    },
  });
}

export const generateMini = {
  qrecc: generateMiniDef("mini-qrecc", "raw:qrecc"),
  topiocqa: generateMiniDef("mini-topiocqa", "raw:topiocqa"),
  orquac: generateMiniDef("mini-orquac", "raw:orquac"),
  nq: generateMiniDef("mini-nq", "raw:nq"),
} as const;

const preprocessParams = z
  .object({
    /** Gold passages missing from the collection are an error unless allowed (then counted in the report). */
    allowMissingGold: z.boolean().default(false),
    rowGroupRows: z.number().int().positive().default(65_536),
    devConversations: z.number().int().nonnegative().default(2000),
    devSeed: z.number().int().default(42),
    devMaxFraction: z.number().positive().max(1).default(0.2),
    trainGoldOnly: z.boolean().default(true),
    labelsMode: z.enum(["override", "compare"]).default("compare"),
  })
  .strict();

function preprocessDef<K extends string>(dataset: DatasetName, kind: K) {
  return defineStep({
    id: `preprocess-${dataset}`,
    version: 1,
    source: import.meta.url,
    description: `Parse native ${dataset} files into turns/passages/qrels Parquet tables.`,
    params: preprocessParams,
    inputs: { raw: kind },
    outputs: PREPROCESS_OUTPUTS,
    runtime: {
      type: "in-process",
      async run(ctx) {
        const located = locateDataset(dataset, ctx.inputs.raw);
        const outDir = join(ctx.outputs.turns, "..");
        const { allowMissingGold, ...params } = ctx.params;
        const result = await preprocessorFor(dataset)({ ...located, outDir, params: { ...params, strict: !allowMissingGold }, onProgress: ctx.progress });
        logWarnings(ctx.log, result.warnings);
        const report = { dataset, counts: checkedCounts(result, located), warnings: result.warnings, agreement: result.agreement ?? null };
        await writeFile(ctx.outputs.report, canonicalJson(report, 2) + "\n");
      },
    },
  });
}

export const preprocess = {
  qrecc: preprocessDef("qrecc", "raw:qrecc"),
  topiocqa: preprocessDef("topiocqa", "raw:topiocqa"),
  orquac: preprocessDef("orquac", "raw:orquac"),
} as const;
