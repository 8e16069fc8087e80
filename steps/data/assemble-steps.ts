/**
 * `assemble-raw-<dataset>-collection` and `assemble-raw-<dataset>-turns-<file splits>`: the
 * fetched datasets.lock entries of one dataset -> a `raw:<dataset>` directory that the
 * preprocessing steps read (see assemble.ts for what goes where, why a target's raw
 * directories hold exactly the files its steps read, and why the result is hard links or
 * copies, never symbolic links).
 */
import { z } from "zod";
import { dir } from "../../pipeline/engine/step.ts";
import { defineStepWith } from "../../pipeline/engine/def-identity.ts";
import { assembleRaw, rawEntries, rawParts, type RawScope } from "./assemble.ts";
import { FETCHED_KIND } from "./fetch/steps.ts";
import type { DatasetName } from "./schemas.ts";

function scopeId(scope: RawScope): string {
  return scope.part === "collection" ? "collection" : `turns-${[...scope.fileSplits].sort().join("-")}${scope.withAnswers === true ? "-answers" : ""}`;
}

function assembleRawDef<D extends DatasetName>(dataset: D, scope: RawScope) {
  const parts = rawParts(dataset, scope);
  const inputs: Record<string, typeof FETCHED_KIND> = Object.fromEntries(rawEntries(dataset, scope).map((e) => [e, FETCHED_KIND]));
  return defineStepWith({ dataset, scope: scopeId(scope) }, {
    id: `assemble-raw-${dataset}-${scopeId(scope)}`,
    version: 2,
    source: import.meta.url,
    description: `Lay out the fetched ${dataset} release files (${scope.part === "collection" ? "collection" : `turns of ${scope.fileSplits.join(", ")}${scope.withAnswers === true ? " with their answers" : ""}`}) as the preprocessing steps read them.`,
    params: z.object({}).strict(),
    inputs,
    outputs: { raw: dir(`raw:${dataset}` as const, "raw") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const r = await assembleRaw(parts, ctx.inputs, ctx.outputs.raw, { onProgress: ctx.progress, signal: ctx.signal });
        ctx.log(`placed ${r.files} files (${r.bytes} bytes), ${r.copied} copied, ${r.files - r.copied} hard-linked`);
      },
    },
  });
}

/** The assemble step of one raw directory (dataset and scope are its identity, so the graph merges repeated uses). */
export function assembleRawStep<D extends DatasetName>(dataset: D, scope: RawScope) {
  return assembleRawDef(dataset, scope) as unknown as ReturnType<typeof assembleRawDef<"qrecc">>;
}
