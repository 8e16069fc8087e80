/**
 * `assemble-raw-<dataset>`: the fetched datasets.lock entries of one dataset -> the
 * `raw:<dataset>` directory that `preprocess-<dataset>` reads (see assemble.ts for what
 * goes where and why the result is hard links or copies, never symbolic links).
 */
import { z } from "zod";
import { defineStep, dir } from "../../pipeline/engine/step.ts";
import { assembleRaw, RAW_ASSEMBLY, rawEntries } from "./assemble.ts";
import { FETCHED_KIND } from "./fetch/steps.ts";
import type { DatasetName } from "./schemas.ts";

function assembleRawDef<K extends string>(dataset: DatasetName, kind: K) {
  const inputs: Record<string, typeof FETCHED_KIND> = Object.fromEntries(rawEntries(dataset).map((e) => [e, FETCHED_KIND]));
  return defineStep({
    id: `assemble-raw-${dataset}`,
    version: 1,
    source: import.meta.url,
    description: `Lay out the fetched ${dataset} release files as preprocess-${dataset} reads them.`,
    params: z.object({}).strict(),
    inputs,
    outputs: { raw: dir(kind, "raw") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const r = await assembleRaw(RAW_ASSEMBLY[dataset], ctx.inputs, ctx.outputs.raw, { onProgress: ctx.progress, signal: ctx.signal });
        ctx.log(`placed ${r.files} files (${r.bytes} bytes), ${r.copied} copied, ${r.files - r.copied} hard-linked`);
      },
    },
  });
}

export const assembleRawSteps = {
  qrecc: assembleRawDef("qrecc", "raw:qrecc"),
  topiocqa: assembleRawDef("topiocqa", "raw:topiocqa"),
  orquac: assembleRawDef("orquac", "raw:orquac"),
} as const;
