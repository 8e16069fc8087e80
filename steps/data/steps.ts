/**
 * Data steps: generate a mini dataset in its native format; preprocess a native dataset
 * directory into the normalized Parquet tables, in two steps: the collection
 * (`preprocess-collection-<dataset>` -> passages.parquet, once for every target) and the
 * turns of the splits a target reads (`preprocess-<dataset>` -> turns/qrels, checked
 * against the passages). One def per registered dataset (datasets/registry.ts), so wiring is
 * typed: `raw:qrecc` only feeds the QReCC steps.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir } from "../../pipeline/engine/step.ts";
import { writeMiniDataset } from "./mini/index.ts";
import { COLLECTION_OUTPUTS, logWarnings, TURN_OUTPUTS } from "./preprocess/step-outputs.ts";
import type { MiniDatasetName } from "./mini/index.ts";
import { preprocessDatasetCollection, preprocessorFor } from "./preprocess/registry.ts";
import { renderQuestionTypeReport } from "./preprocess/question-type-report.ts";
import { TYPE_RULE_NAMES, type TypeRule } from "./preprocess/question-types.ts";
import { locateCollection, locateTurns } from "./layout.ts";
import { checkedCounts } from "./preprocess/common.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import type { DatasetName } from "./schemas.ts";
import { perDataset } from "./datasets/registry.ts";
import { canonicalJson } from "../../pipeline/engine/canonical.ts";
import { withRawOrigins } from "./raw-origin.ts";

export { DATASETS } from "./datasets/registry.ts";

/** The kind of a dataset's raw directory (its native files): `raw:qrecc` feeds only the QReCC steps. */
type RawKind<N extends string> = `raw:${N}`;
const rawKind = <N extends string>(name: N): RawKind<N> => `raw:${name}`;

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
        const r = await writeMiniDataset(dataset, overrides, ctx.outputs.raw, { onProgress: (done, total) => ctx.progress(done, total, "passages written") });
        ctx.log(`wrote ${r.files.length} files`);
      },
    },
  });
}

export const generateMini = {
  ...(perDataset((d) => generateMiniDef(`mini-${d.name}`, rawKind(d.name))) as { readonly [N in DatasetName]: ReturnType<typeof generateMiniDef<RawKind<N>>> }),
  nq: generateMiniDef("mini-nq", rawKind("nq")),
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
    labelsMode: z.enum(["override", "compare"]).default("override"),
    typeRule: z.enum(TYPE_RULE_NAMES as [TypeRule, ...TypeRule[]]).default("shared-passage"),
    /** Splits of the turns table; only their files are read (default: every split of the dataset). */
    splits: z.array(z.string()).min(1).optional(),
  })
  .strict();

function preprocessCollectionDef<K extends string>(dataset: DatasetName, kind: K) {
  return defineStep({
    id: `preprocess-collection-${dataset}`,
    version: 1,
    source: import.meta.url,
    description: `Parse the ${dataset} passage collection into passages.parquet (ids checked unique).`,
    params: z.object({ rowGroupRows: z.number().int().positive().default(65_536) }).strict(),
    inputs: { raw: kind },
    outputs: COLLECTION_OUTPUTS,
    runtime: {
      type: "in-process",
      run: (ctx) =>
        withRawOrigins(dataset, { dir: ctx.inputs.raw, stepId: ctx.inputKeys.raw.stepId }, ctx.settings.dataDir, async () => {
          const files = locateCollection(dataset, ctx.inputs.raw);
          const r = await preprocessDatasetCollection(dataset, files, ctx.outputs.passages, { rowGroupRows: ctx.params.rowGroupRows, onProgress: (done, total) => ctx.progress(done, total, "passages"), signal: ctx.signal });
          if (r.passages === 0) {
            throw new InputError(`the collection has no passages (${files.length} file${files.length === 1 ? "" : "s"} read)`, {
              file: files[0] ?? "(no collection file)",
              fix: "check that the collection files are complete (an empty or truncated download gives no passages)",
            });
          }
          ctx.log(`${r.passages} passages from ${files.length} files`);
          await writeFile(ctx.outputs.report, canonicalJson({ dataset, files: files.length, passages: r.passages }, 2) + "\n");
        }),
    },
  });
}

export const preprocessCollectionSteps = perDataset((d) => preprocessCollectionDef(d.name, rawKind(d.name))) as { readonly [N in DatasetName]: ReturnType<typeof preprocessCollectionDef<RawKind<N>>> };

function preprocessDef<K extends string>(dataset: DatasetName, kind: K) {
  return defineStep({
    id: `preprocess-${dataset}`,
    version: 2,
    source: import.meta.url,
    description: `Parse native ${dataset} turn files (the splits asked for) into turns/qrels Parquet, checked against the collection.`,
    params: preprocessParams,
    inputs: { raw: kind, passages: "parquet:passages" },
    outputs: TURN_OUTPUTS,
    runtime: {
      type: "in-process",
      async run(ctx) {
        const { splits, allowMissingGold, ...params } = ctx.params;
        const located = locateTurns(dataset, ctx.inputs.raw, splits);
        const outDir = join(ctx.outputs.turns, "..");
        const parse = () => preprocessorFor(dataset)({ ...located, passagesFile: ctx.inputs.passages, outDir, params: { ...params, strict: !allowMissingGold }, onProgress: ctx.progress, signal: ctx.signal });
        const result = await withRawOrigins(dataset, { dir: ctx.inputs.raw, stepId: ctx.inputKeys.raw.stepId }, ctx.settings.dataDir, parse);
        logWarnings(ctx.log, result.warnings);
        const qt = result.questionTypes;
        if (qt.agreement !== null) {
          const per = Object.entries(qt.agreement.perClass).map(([c, a]) => `${c} ${a.both}/${a.labelled}`).join(", ");
          ctx.log(`question types: breakdown by ${qt.breakdown}; computed rule ${qt.rule} agrees with the labels on ${per}`);
        }
        const report = { dataset, splits: Object.keys(located.turnsFiles).sort(), counts: checkedCounts(result, located), warnings: result.warnings, agreement: qt.agreement };
        await writeFile(ctx.outputs.report, canonicalJson(report, 2) + "\n");
        await writeFile(ctx.outputs.questionTypes, canonicalJson(qt, 2) + "\n");
        await writeFile(ctx.outputs.questionTypesReport, renderQuestionTypeReport(qt));
      },
    },
  });
}

export const preprocess = perDataset((d) => preprocessDef(d.name, rawKind(d.name))) as { readonly [N in DatasetName]: ReturnType<typeof preprocessDef<RawKind<N>>> };
