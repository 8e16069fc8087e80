/**
 * Screenshots of a written report in headless Chromium, to look at what a reader sees:
 *
 *   npx tsx scripts/report-screenshots.ts [report dir (default ./report)] [out dir (default <report>/../report-screenshots)]
 *
 * Writes PNGs of: the front page (findings and the first tables), a long view of the whole
 * page (tables and figures), the provenance page of the first DPR number of the first dense
 * table (an evaluation: its chain down to the run file), the page of the model behind it
 * (training curves), the page of its run (the TREC file to download), and the provenance
 * index with the stage graph. Prints which page each PNG shows.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { findChromium, screenshot } from "./chromium.ts";
import type { RenderedTableJson } from "../steps/report/table.ts";
import type { ProvenanceIndex } from "../steps/report/provenance-step.ts";

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(2);
}

const reportDir = resolve(process.argv[2] ?? "report");
const outDir = resolve(process.argv[3] ?? join(reportDir, "..", `${reportDir.split("/").pop()}-screenshots`));
if (!existsSync(join(reportDir, "index.html"))) fail(`${reportDir}/index.html not found: run the report first (./cspipe)`);
const binary = findChromium() ?? fail("headless Chromium not found: apt-get install -y chromium (scripts/setup.sh does), or set CSPIPE_CHROMIUM");
mkdirSync(outDir, { recursive: true });

const url = (rel: string): string => pathToFileURL(join(reportDir, rel)).href;
const WHOLE = { w: 1280, h: 14000, part: 2800 };
const shots: { file: string; page: string; w: number; h: number }[] = [
  { file: "01-front.png", page: "index.html", w: 1280, h: 1600 },
  { file: "02-whole-page.png", page: "index.html", w: WHOLE.w, h: WHOLE.h },
];

// The first dense table with DPR rows, its first DPR number, and the chain behind it.
const tables = readdirSync(join(reportDir, "tables")).filter((f) => f.endsWith(".json")).sort();
const dense = tables.map((f) => JSON.parse(readFileSync(join(reportDir, "tables", f), "utf8")) as RenderedTableJson).find((t) => t.rows.some((r) => r.id.startsWith("dpr")));
const cell = dense?.rows.filter((r) => r.id.startsWith("dpr")).flatMap((r) => Object.values(r.cells)).find((c) => c.stepKeys.length > 0);
const index = existsSync(join(reportDir, "provenance", "index.json")) ? (JSON.parse(readFileSync(join(reportDir, "provenance", "index.json"), "utf8")) as ProvenanceIndex) : undefined;
if (cell && index) {
  const evalKey = cell.stepKeys[0]!;
  shots.push({ file: "03-evaluation-provenance.png", page: `provenance/${evalKey}.html`, w: 1280, h: 2600 });
  // Follow the chain links of the evaluation's page to the run and the model.
  const html = readFileSync(join(reportDir, "provenance", `${evalKey}.html`), "utf8");
  const linked = [...html.matchAll(/href="([0-9a-f]{64})\.html"/g)].map((m) => m[1]!);
  const byKey = new Map(index.entries.map((e) => [e.key, e]));
  const model = linked.map((k) => byKey.get(k)).find((e) => e?.stepId === "train-dpr" || e?.stepId === "pretrain-dpr");
  const search = linked.map((k) => byKey.get(k)).find((e) => e?.stepId.startsWith("search-"));
  if (model) shots.push({ file: "04-model-training-curves.png", page: `provenance/${model.page}`, w: 1280, h: 1800 });
  if (search) shots.push({ file: "05-run-file.png", page: `provenance/${search.page}`, w: 1280, h: 1400 });
}
if (index) shots.push({ file: "06-provenance-index.png", page: "provenance/index.html", w: 1280, h: 2400 });

for (const s of shots) {
  screenshot(binary, url(s.page), join(outDir, s.file), s.w, s.h);
  process.stdout.write(`${join(outDir, s.file)}  ${s.page}\n`);
}

// The whole page again in parts a screen high (an image viewer shrinks a 14000-pixel PNG to
// illegibility): Chromium shows the PNG shifted up in a window of one part's height.
for (let i = 0; i * WHOLE.part < WHOLE.h; i++) {
  const wrapper = join(outDir, `.part-${i}.html`);
  writeFileSync(wrapper, `<!DOCTYPE html><html><body style="margin:0;overflow:hidden"><img src="02-whole-page.png" style="display:block;margin-top:-${i * WHOLE.part}px"></body></html>`);
  const file = `02-whole-page-part${i + 1}.png`;
  screenshot(binary, pathToFileURL(wrapper).href, join(outDir, file), WHOLE.w, WHOLE.part);
  rmSync(wrapper);
  process.stdout.write(`${join(outDir, file)}  index.html, ${i * WHOLE.part}..${(i + 1) * WHOLE.part} px\n`);
}
