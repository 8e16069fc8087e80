/**
 * Same key, same bytes, checked over two whole stores (e.g. two cold runs of one commit, on two
 * machines, or under two kernel sets the pins make equal): every step entry both stores hold under
 * one key must have the same output digests. An entry that breaks it is a step whose outputs
 * depend on something its key does not hold (a clock, the machine, an unpinned kernel), and it
 * also moves the keys of every step downstream, which then show up as keys only one store holds.
 * So the report lists the broken entries first (with the output files that differ: the cause),
 * then counts the keys each store holds alone.
 *
 *   npx tsx scripts/compare-stores.ts <storeA> <storeB>
 *
 * Exits 1 when an entry breaks the promise, 2 on bad input; keys held by one store only are
 * reported but are no failure (the two runs may have run different targets).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Store, type Entry } from "../pipeline/engine/store.ts";
import { stampedOutputDigest } from "../pipeline/engine/digest.ts";

/** One entry as this comparison sees it: its step name and each output's digest. */
export interface EntryDigests {
  readonly name: string;
  readonly outputs: Readonly<Record<string, string>>;
}

/** `<step id>/<key>` -> the entry's digests. */
export type StoreDigests = ReadonlyMap<string, EntryDigests>;

export interface Broken {
  readonly id: string;
  readonly name: string;
  /** Output names whose digests differ, or that one side lacks. */
  readonly outputs: readonly string[];
}

export interface StoreComparison {
  readonly same: number;
  readonly broken: readonly Broken[];
  readonly onlyA: readonly string[];
  readonly onlyB: readonly string[];
}

/** Pure: the entries both sides hold under one key, split into same bytes and broken; the rest by side. */
export function compareStores(a: StoreDigests, b: StoreDigests): StoreComparison {
  let same = 0;
  const broken: Broken[] = [];
  for (const id of [...a.keys()].filter((k) => b.has(k)).sort()) {
    const [x, y] = [a.get(id)!, b.get(id)!];
    const names = [...new Set([...Object.keys(x.outputs), ...Object.keys(y.outputs)])].sort();
    const differing = names.filter((n) => x.outputs[n] !== y.outputs[n]);
    if (differing.length === 0) same++;
    else broken.push({ id, name: x.name, outputs: differing });
  }
  const only = (p: StoreDigests, q: StoreDigests) => [...p.keys()].filter((k) => !q.has(k)).sort();
  return { same, broken, onlyA: only(a, b), onlyB: only(b, a) };
}

/** Pure: file path -> digest maps of one output on each side, to the files that differ or one side lacks. */
export function differingFiles(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])].sort().filter((f) => a.get(f) !== b.get(f));
}

export async function storeDigests(root: string): Promise<Map<string, EntryDigests>> {
  if (!existsSync(join(root, "entries"))) throw new Error(`${root}: no store here (no entries/). Fix: pass a store directory, e.g. the --store of a run (./artifacts by default)`);
  const out = new Map<string, EntryDigests>();
  for (const e of await new Store(root).entries()) {
    out.set(`${e.stepId}/${e.key}`, { name: e.manifest.step.name, outputs: Object.fromEntries(Object.entries(e.manifest.outputs).map(([n, o]) => [n, o.digest])) });
  }
  return out;
}

/** Each file of one output of an entry -> its sha256, hashed as the store hashes outputs (a file output is one file named by the output). */
async function outputFiles(store: Store, entry: Entry, output: string): Promise<Map<string, string>> {
  const record = entry.manifest.outputs[output];
  if (record === undefined) return new Map();
  const { stamps } = await stampedOutputDigest(store.outputPath(entry, output), record.dir);
  return new Map(Object.entries(stamps).map(([rel, s]) => [rel === "" ? output : `${output}/${rel}`, s.digest]));
}

/** The files behind a broken entry's differing outputs. */
export async function brokenFiles(roots: readonly [string, string], b: Broken): Promise<string[]> {
  const [stepId, key] = b.id.split("/") as [string, string];
  const stores = roots.map((r) => new Store(r));
  const entries = await Promise.all(stores.map((s) => s.lookup(stepId, key)));
  if (entries.some((e) => e === undefined)) return ["(entry unreadable)"];
  const files = await Promise.all(b.outputs.map(async (o) => differingFiles(await outputFiles(stores[0]!, entries[0]!, o), await outputFiles(stores[1]!, entries[1]!, o))));
  return files.flat();
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.length !== 2) {
    process.stderr.write("usage: compare-stores.ts <storeA> <storeB>\n");
    return 2;
  }
  const roots = [argv[0]!, argv[1]!] as const;
  const [a, b] = await Promise.all(roots.map(storeDigests));
  const r = compareStores(a!, b!);
  for (const x of r.broken) process.stdout.write(`same key, other bytes  ${x.name} (${x.id.slice(0, x.id.indexOf("/") + 13)}): ${(await brokenFiles(roots, x)).join(", ")}\n`);
  process.stdout.write(`${r.same} of ${r.same + r.broken.length} entries both stores hold under one key have the same bytes; ${r.onlyA.length} keys only in ${roots[0]}, ${r.onlyB.length} only in ${roots[1]}\n`);
  return r.broken.length === 0 ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 2;
  });
}
