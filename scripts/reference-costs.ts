/**
 * Writes pipeline/definitions/reference-costs.json from the run records of cheap cold runs:
 *   npx tsx scripts/reference-costs.ts --command "<what was run, when, at which load>" \
 *       --quiet <store>... [--loaded <store>...] [--skip <step>...]
 * `measured`: per step name, the least seconds over the records of the --quiet stores (runs on a
 * quiet machine). Steps only the --loaded stores ran (a shared machine under load) go to
 * `derived.byName`, scaled by the ratio of quiet to loaded seconds summed over the steps both ran.
 * `derived.byStepId`: the median of each id's steps, and the ids the file fixes by hand in
 * `derived.fixed` (the trainings, from the README's cold run), which are kept. Steps whose params a
 * run overrode (`--set`) must not be measured: --skip them.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Store } from "../pipeline/engine/store.ts";
import { REFERENCE_COSTS_FILE, readReferenceCosts } from "../pipeline/definitions/reference-costs.ts";

const args = process.argv.slice(2);
const values = (flag: string): string[] => {
  const out: string[] = [];
  for (let i = args.indexOf(flag) + 1; i > 0 && i < args.length && !args[i]!.startsWith("--"); i++) out.push(args[i]!);
  return out;
};
const command = values("--command")[0];
const skip = new Set(values("--skip"));
if (command === undefined || values("--quiet").length === 0) throw new Error("usage: reference-costs.ts --command '<what was run>' --quiet <store>... [--loaded <store>...] [--skip <step>...]");

/** Step name -> least seconds and its step id, over the records of some stores. */
async function least(stores: readonly string[]): Promise<Map<string, { seconds: number; id: string }>> {
  const out = new Map<string, { seconds: number; id: string }>();
  for (const dir of stores) {
    for (const { record } of await new Store(dir).runRecords()) {
      for (const [name, s] of Object.entries(record.steps)) {
        if (s.seconds === undefined || skip.has(name)) continue;
        if (s.seconds < (out.get(name)?.seconds ?? Infinity)) out.set(name, { seconds: s.seconds, id: s.stepId });
      }
    }
  }
  return out;
}

const quiet = await least(values("--quiet"));
const loaded = await least(values("--loaded"));
const both = [...quiet.keys()].filter((n) => loaded.has(n));
const scale = both.length === 0 ? 1 : both.reduce((a, n) => a + quiet.get(n)!.seconds, 0) / both.reduce((a, n) => a + loaded.get(n)!.seconds, 0);
const scaled = new Map([...loaded].filter(([n]) => !quiet.has(n)).map(([n, v]) => [n, { seconds: v.seconds * scale, id: v.id }]));
const round = (s: number) => Math.round(s * 1000) / 1000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const byId = new Map<string, number[]>();
for (const [, v] of [...quiet, ...scaled]) byId.set(v.id, [...(byId.get(v.id) ?? []), v.seconds]);
const current = readReferenceCosts();
const sorted = <V>(m: Iterable<[string, V]>) => Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : 1)));
const out = {
  machine: current.machine,
  measured: { command, seconds: sorted([...quiet].map(([n, v]) => [n, round(v.seconds)] as [string, number])) },
  derived: {
    note: current.derived.note,
    loadScale: round(scale),
    fixed: current.derived.fixed,
    byName: sorted([...scaled].map(([n, v]) => [n, round(v.seconds)] as [string, number])),
    byStepId: sorted([...[...byId].map(([id, xs]) => [id, round(median(xs))] as [string, number]), ...Object.entries(current.derived.fixed)]),
  },
};
writeFileSync(fileURLToPath(REFERENCE_COSTS_FILE), JSON.stringify(out, null, 1) + "\n");
process.stdout.write(`${quiet.size} steps measured, ${scaled.size} scaled by ${round(scale)} from loaded runs, ${Object.keys(out.derived.byStepId).length} step ids derived\n`);
