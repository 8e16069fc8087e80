/**
 * `list-passage-ids`: the ids of a released collection file (JSONL blocks `{"id", ...}`, e.g.
 * OR-QuAC's `dev_blocks.txt`), one per line in file order, as `ids:passages`. The DPR
 * example assembly takes them as the dev collection of model selection (pipeline/definitions/
 * dense/setup.ts, devPassages). A line that is not a JSON object with a string or number id
 * is an InputError naming the file and line.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, file } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { readJsonl } from "../lib/jsonl.ts";
import { FETCHED_KIND } from "./fetch/steps.ts";

/** Ids of a JSONL blocks file, in file order; duplicates are an InputError. */
export async function readBlockIds(path: string): Promise<string[]> {
  const ids: string[] = [];
  const seen = new Map<string, number>();
  for await (const rec of readJsonl(path)) {
    const v = rec.value as { id?: unknown } | null;
    const id = v !== null && typeof v === "object" ? v.id : undefined;
    if (typeof id !== "string" && typeof id !== "number") {
      throw new InputError("expected a JSON object with an 'id'", { file: path, line: rec.line, field: "id", fix: "pass the release's blocks file (JSONL {id, title, text})" });
    }
    const key = String(id);
    const prev = seen.get(key);
    if (prev !== undefined) throw new InputError(`duplicate id '${key}' (first at line ${prev})`, { file: path, line: rec.line, field: "id", fix: "use the release's file unchanged" });
    seen.set(key, rec.line);
    ids.push(key);
  }
  return ids;
}

export const listPassageIds = defineStep({
  id: "list-passage-ids",
  version: 1,
  source: import.meta.url,
  description: "The passage ids of a released collection file (e.g. OR-QuAC's dev blocks), one per line.",
  params: z.object({ file: z.string().min(1) }).strict(),
  inputs: { files: FETCHED_KIND },
  outputs: { ids: file("ids:passages", "ids.txt") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const ids = await readBlockIds(join(ctx.inputs.files, ctx.params.file));
      if (ids.length === 0) throw new InputError("no passages", { file: join(ctx.inputs.files, ctx.params.file), fix: "pass the release's blocks file" });
      await writeFile(ctx.outputs.ids, ids.join("\n") + "\n");
      ctx.log(`${ids.length} passage ids`);
    },
  },
});
