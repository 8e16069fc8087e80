/**
 * Writes pipeline/definitions/reference-costs.json from the run records of cheap cold runs:
 *   npx tsx scripts/reference-costs.ts --command "<what was run>" <store>...
 * `measured`: per step name, the least seconds over every record of the stores (the least loaded
 * run); `derived.byStepId`: the median of the measured steps of each id, except the ids the
 * current file fixes by hand in `derived.fixed` (the trainings, from the README's cold run), which
 * are kept. Steps whose params a run overrode (`--set`) must not be measured: pass --skip <name>.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Store } from "../pipeline/engine/store.ts";
import { REFERENCE_COSTS_FILE, readReferenceCosts } from "../pipeline/definitions/reference-costs.ts";

const args = process.argv.slice(2);
const take = (flag: string): string[] => args.flatMap((a, i) => (a === flag && args[i + 1] !== undefined ? [args[i + 1]!] : []));
const command = take("--command")[0];
const skip = new Set(take("--skip"));
const stores = args.filter((a, i) => !a.startsWith("--") && !["--command", "--skip"].includes(args[i - 1] ?? ""));
if (command === undefined || stores.length === 0) throw new Error("usage: reference-costs.ts --command '<what was run>' [--skip <step>...] <store>...");

const seconds = new Map<string, number>();
const ids = new Map<string, string>();
for (const dir of stores) {
  for (const { record } of await new Store(dir).runRecords()) {
    for (const [name, s] of Object.entries(record.steps)) {
      if (s.seconds === undefined || skip.has(name)) continue;
      seconds.set(name, Math.min(seconds.get(name) ?? Infinity, s.seconds));
      ids.set(name, s.stepId);
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const byId = new Map<string, number[]>();
for (const [name, s] of seconds) byId.set(ids.get(name)!, [...(byId.get(ids.get(name)!) ?? []), s]);
const current = readReferenceCosts();
const fixed = current.derived.fixed;
const sorted = <V>(m: Iterable<[string, V]>) => Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : 1)));
const out = {
  machine: current.machine,
  measured: { command, seconds: sorted([...seconds].map(([n, s]) => [n, Math.round(s * 1000) / 1000] as [string, number])) },
  derived: { note: current.derived.note, fixed, byStepId: sorted([...[...byId].map(([id, xs]) => [id, median(xs)] as [string, number]), ...Object.entries(fixed)]) },
};
writeFileSync(fileURLToPath(REFERENCE_COSTS_FILE), JSON.stringify(out, null, 1) + "\n");
process.stdout.write(`${seconds.size} steps measured, ${Object.keys(out.derived.byStepId).length} step ids derived\n`);
