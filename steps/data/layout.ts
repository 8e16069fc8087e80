/**
 * Where each dataset's native files sit inside a raw dataset directory (as the real
 * releases unpack and as the mini generator writes them). Files are found by name
 * anywhere below the root, so an extra top-level folder from an archive does not matter.
 */
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";
import type { DatasetName } from "./schemas.ts";
import type { PreprocessInputs } from "./preprocess/common.ts";

function walk(root: string, dir = root, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(root, p, out);
    else out.push(relative(root, p));
  }
  return out;
}

interface Layout {
  readonly turns: Readonly<Record<string, string>>;
  readonly collection: RegExp;
  readonly qrels?: Readonly<Record<string, string>>;
  readonly labels?: string;
}

/** File names per dataset (basename match; the collection by pattern on the relative path). */
export const LAYOUTS: Readonly<Record<DatasetName, Layout>> = {
  qrecc: {
    turns: { train: "scai-qrecc21-training-turns.json", test: "scai-qrecc21-test-turns.json" },
    collection: /^(.*\/)?collection-paragraph\/.*\.jsonl(\.gz)?$/,
    qrels: { test: "qrels.txt", train: "qrels_train.txt" },
    labels: "test_question_types.json",
  },
  topiocqa: {
    // The DPR-style all_history files carry the gold passages (the raw turn files do not).
    turns: { train: "all_history/train.json", dev: "all_history/dev.json" },
    collection: /^(.*\/)?full_wiki_segments\.tsv$/,
  },
  orquac: {
    turns: { train: "train.txt", dev: "dev.txt", test: "test.txt" },
    collection: /^(.*\/)?all_blocks\.txt$/,
    qrels: { all: "qrels.txt" },
  },
};

export function locateDataset(dataset: DatasetName, root: string): Omit<PreprocessInputs, "outDir" | "params" | "onProgress"> {
  const layout = LAYOUTS[dataset];
  const files = walk(root);
  const find = (name: string, required: boolean): string | undefined => {
    const hits = files.filter((f) => f === name || f.endsWith(`/${name}`));
    if (hits.length > 1) throw new InputError(`${hits.length} files named ${name}: ${hits.join(", ")}`, { file: root, fix: "keep one copy of each dataset file" });
    if (hits.length === 0 && required) {
      throw new InputError(`no file named ${name} for ${dataset}`, { file: root, fix: `place the ${dataset} release files there (see datasets.lock)` });
    }
    return hits[0] === undefined ? undefined : join(root, hits[0]);
  };
  const turnsFiles: Record<string, string> = {};
  for (const [split, name] of Object.entries(layout.turns)) turnsFiles[split] = find(name, true)!;
  const collectionFiles = files.filter((f) => layout.collection.test(f)).map((f) => join(root, f));
  if (collectionFiles.length === 0) throw new InputError(`no collection files matching ${layout.collection} for ${dataset}`, { file: root });
  const out: { turnsFiles: Record<string, string>; collectionFiles: string[]; qrelsFiles?: Record<string, string>; labelsFile?: string } = { turnsFiles, collectionFiles };
  if (layout.qrels) {
    const q: Record<string, string> = {};
    for (const [split, name] of Object.entries(layout.qrels)) {
      const f = find(name, false);
      if (f) q[split] = f;
    }
    out.qrelsFiles = q;
  }
  if (layout.labels) {
    const l = find(layout.labels, false);
    if (l) out.labelsFile = l;
  }
  return out;
}
