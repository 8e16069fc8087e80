/**
 * Dev collections for model selection, as `ids:passages` lists the DPR example assembly takes:
 *
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
import { readParquetRows } from "../lib/parquet.ts";
import { mulberry32 } from "../lib/prng.ts";
import { readRunParquet } from "../eval/run-table.ts";
import type { PassageRow, TurnRow } from "./schemas.ts";

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

/**
 * A dev collection for model selection built as DPR's dev files are: every gold passage of
 * the dev turns, the top `perQuery` BM25 passages of each dev query that are not its gold (hard
 * negatives), then a seeded uniform sample of the rest up to `size` passages (the hard part
 * alone when it is larger). Pure; ids sorted by collection order (`order`).
 */
export function buildDevCollection(x: {
  readonly gold: ReadonlyMap<string, readonly string[]>;
  readonly run: ReadonlyMap<string, readonly { readonly docid: string; readonly rank?: number }[]>;
  readonly order: readonly string[];
  readonly perQuery: number;
  readonly size: number;
  readonly seed: number;
}): { ids: string[]; gold: number; hard: number; sampled: number } {
  const known = new Set(x.order);
  const picked = new Set<string>();
  for (const ids of x.gold.values()) for (const id of ids) if (known.has(id)) picked.add(id);
  const gold = picked.size;
  for (const [qid, golds] of [...x.gold.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    const hits = [...(x.run.get(qid) ?? [])].sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0));
    let taken = 0;
    for (const h of hits) {
      if (taken >= x.perQuery) break;
      if (golds.includes(h.docid) || !known.has(h.docid)) continue;
      picked.add(h.docid);
      taken++;
    }
  }
  const hard = picked.size - gold;
  const rest = x.order.filter((id) => !picked.has(id));
  const rand = mulberry32(x.seed);
  const need = Math.max(0, Math.min(rest.length, x.size - picked.size));
  for (let i = 0; i < need; i++) {
    const j = i + Math.floor(rand() * (rest.length - i));
    const t = rest[i]!;
    rest[i] = rest[j]!;
    rest[j] = t;
    picked.add(rest[i]!);
  }
  return { ids: x.order.filter((id) => picked.has(id)), gold, hard, sampled: need };
}

export const buildDevCollectionStep = defineStep({
  id: "build-dev-collection",
  version: 1,
  source: import.meta.url,
  description: "A model-selection dev collection: the dev turns' gold, the top BM25 non-gold passages of each dev query, and a seeded sample of the rest.",
  params: z.object({ split: z.string().default("dev"), perQuery: z.number().int().nonnegative(), size: z.number().int().positive(), seed: z.number().int().default(42) }).strict(),
  inputs: { run: "parquet:run", turns: "parquet:turns", passages: "parquet:passages" },
  outputs: { ids: file("ids:passages", "ids.txt") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const { split, perQuery, size, seed } = ctx.params;
      const gold = new Map<string, string[]>();
      for await (const t of readParquetRows<TurnRow>(ctx.inputs.turns)) if (t.split === split && t.gold_passage_ids.length > 0) gold.set(t.qid, [...t.gold_passage_ids]);
      if (gold.size === 0) throw new InputError(`no '${split}' turn has a gold passage`, { file: ctx.inputs.turns, field: "split", fix: "build the dev collection of a split with gold passages" });
      const order: string[] = [];
      for await (const p of readParquetRows<PassageRow>(ctx.inputs.passages)) order.push(p.id);
      const out = buildDevCollection({ gold, run: await readRunParquet(ctx.inputs.run), order, perQuery, size, seed });
      await writeFile(ctx.outputs.ids, out.ids.join("\n") + "\n");
      ctx.log(`${out.ids.length} passages: ${out.gold} gold, ${out.hard} BM25 hard negatives (${perQuery} per query), ${out.sampled} sampled`);
    },
  },
});
