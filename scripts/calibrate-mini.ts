/**
 * Prints the mini world's BM25 numbers beside the paper's, with the ratio and whether each
 * is within the calibration band (scripts/mini-calibration.ts):
 *   npx tsx scripts/calibrate-mini.ts [--json] [qrecc|topiocqa|orquac ...]
 * Takes a few seconds per dataset; trains nothing.
 */
import { generateWorld, resolveParams } from "../steps/data/mini/index.ts";
import { BAND, bm25Targets, measureBm25, type CalibratedDataset, type Measured } from "./mini-calibration.ts";

const args = process.argv.slice(2);
const json = args.includes("--json");
const wanted = args.filter((a) => !a.startsWith("--")) as CalibratedDataset[];
const datasets: CalibratedDataset[] = wanted.length > 0 ? wanted : ["qrecc", "topiocqa", "orquac", "nq"];
const targets = bm25Targets();
const all: Measured[] = [];
for (const d of datasets) {
  const world = generateWorld(resolveParams(`mini-${d}`));
  all.push(...measureBm25(world, d, targets));
}
if (json) {
  process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
} else {
  const pad = (s: string, n: number) => s.padEnd(n);
  process.stdout.write(`${pad("dataset", 9)}${pad("form", 18)}${pad("type", 10)}${pad("metric", 11)}${pad("paper", 8)}${pad("mini", 8)}${pad("ratio", 7)}${pad("N", 6)}band x${BAND}\n`);
  for (const m of all) {
    const t = m.target;
    process.stdout.write(`${pad(t.dataset, 9)}${pad(t.form, 18)}${pad(t.group ?? "all", 10)}${pad(t.metric, 11)}${pad(t.paper.toFixed(3), 8)}${pad(m.mini.toFixed(3), 8)}${pad(m.ratio.toFixed(2), 7)}${pad(String(m.n), 6)}${m.inBand ? "ok" : m.ratio > 1 ? "HIGH" : "LOW"}\n`);
  }
  const inBand = all.filter((m) => m.inBand).length;
  process.stdout.write(`${inBand}/${all.length} in band\n`);
}
