/**
 * Two stores' trained models side by side: for every training step name both stores hold, whether
 * its weight files (`*.safetensors`, `*.onnx` under the entry's outputs) have the same bytes. The
 * rest of a model directory (result.json, metrics.jsonl) records how the training ran, not what it
 * learnt, and may differ. Used to show that a change which re-keys the trainings left their weights
 * byte-identical, or that two machines (or kernel sets) trained the same models
 * (README: "Time", "Same key, same bytes").
 *
 *   npx tsx scripts/compare-models.ts <storeA> <storeB> [--steps train-dpr,pretrain-dpr]
 *
 * Prints each model that differs or is missing its weights, then a summary; exits 1 when a model
 * differs, 2 on bad input. Where a store holds several entries of one step name (reruns under other
 * keys), the newest is compared.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Store } from "../pipeline/engine/store.ts";
import { fileDigest, listOutputFiles } from "../pipeline/engine/digest.ts";

/** A model's weight files: path inside the entry's outputs -> sha256. */
export type Weights = ReadonlyMap<string, string>;

export interface ModelRow {
  readonly name: string;
  readonly same: boolean;
  /** Files whose digests differ or that only one side has. */
  readonly differing: readonly string[];
}

const WEIGHT_FILE = /\.(safetensors|onnx)$/;

/** Pure: compares the models the two sides share by step name; `onlyA` / `onlyB` list the rest. */
export function compareModels(a: ReadonlyMap<string, Weights>, b: ReadonlyMap<string, Weights>): { rows: ModelRow[]; onlyA: string[]; onlyB: string[] } {
  const rows: ModelRow[] = [];
  for (const name of [...a.keys()].filter((n) => b.has(n)).sort()) {
    const wa = a.get(name)!, wb = b.get(name)!;
    const files = [...new Set([...wa.keys(), ...wb.keys()])].sort();
    const differing = files.filter((f) => wa.get(f) === undefined || wa.get(f) !== wb.get(f));
    rows.push({ name, same: files.length > 0 && differing.length === 0, differing: files.length === 0 ? ["(no weight files)"] : differing });
  }
  const only = (x: ReadonlyMap<string, Weights>, y: ReadonlyMap<string, Weights>) => [...x.keys()].filter((n) => !y.has(n)).sort();
  return { rows, onlyA: only(a, b), onlyB: only(b, a) };
}

/** The weight files of an entry's outputs, listed and hashed as the store lists and hashes outputs. */
async function weightFiles(outputs: string): Promise<Map<string, string>> {
  if (!existsSync(outputs)) return new Map();
  const files = (await listOutputFiles(outputs)).filter((f) => WEIGHT_FILE.test(f.rel));
  return new Map(await Promise.all(files.map(async (f): Promise<[string, string]> => [f.rel, await fileDigest(join(outputs, ...f.rel.split("/")))])));
}

/** The newest entry's weights of each step name whose id is in `stepIds`. */
export async function storeWeights(root: string, stepIds: ReadonlySet<string>): Promise<Map<string, Weights>> {
  if (!existsSync(join(root, "entries"))) throw new Error(`${root}: no store here (no entries/). Fix: pass a store directory, e.g. the --store of a run`);
  const newest = new Map<string, { finished: string; dir: string }>();
  for (const e of await new Store(root).entries()) {
    if (!stepIds.has(e.stepId)) continue;
    const seen = newest.get(e.manifest.step.name);
    if (seen === undefined || e.manifest.timings.finished > seen.finished) newest.set(e.manifest.step.name, { finished: e.manifest.timings.finished, dir: e.dir });
  }
  return new Map(await Promise.all([...newest].map(async ([name, { dir }]): Promise<[string, Weights]> => [name, await weightFiles(join(dir, "outputs"))])));
}

async function main(argv: readonly string[]): Promise<number> {
  const flag = argv.indexOf("--steps");
  const stepIds = new Set((flag >= 0 ? argv[flag + 1] ?? "" : "train-dpr,pretrain-dpr").split(",").filter(Boolean));
  const stores = argv.filter((x, i) => !x.startsWith("--") && (flag < 0 || i !== flag + 1));
  if (stores.length !== 2 || stepIds.size === 0) {
    process.stderr.write("usage: compare-models.ts <storeA> <storeB> [--steps train-dpr,pretrain-dpr]\n");
    return 2;
  }
  const [a, b] = await Promise.all(stores.map((s) => storeWeights(s, stepIds)));
  const { rows, onlyA, onlyB } = compareModels(a!, b!);
  for (const r of rows.filter((x) => !x.same)) process.stdout.write(`differs  ${r.name}: ${r.differing.join(", ")}\n`);
  const same = rows.filter((r) => r.same).length;
  process.stdout.write(`${same} of ${rows.length} models both stores hold have byte-identical weights; ${onlyA.length} only in ${stores[0]}, ${onlyB.length} only in ${stores[1]}\n`);
  return same === rows.length ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 2;
  });
}
