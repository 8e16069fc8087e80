/**
 * Results you can find: a target's run ends by naming the folder its results were exported to
 * (`results/<target>/` under the export root, so `--export-dir` moves them), `show <target>` shows
 * its result entry, and a target that exports nothing names where its outputs are in the store.
 * Run through ./cspipe with the real definitions (table3-bm25: OR-QuAC's BM25 rows, ~15 s).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";
import { FIXTURE_TARGETS, cspipe } from "./cspipe.ts";

test("run table3-bm25 --export-dir: ends naming results/table3-bm25/ with its files; show table3-bm25 shows the rendered table", () => {
  const dir = tempDir("cspipe-results-");
  const store = join(dir, "store");
  const exportDir = join(dir, "out");
  const r = cspipe(["run", "table3-bm25", "--store", store, "--export-dir", exportDir]);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n");
  assert.match(lines.at(-2)!, /^ok: 13 executed, 0 cached, 0 failed in [\d.]+ s$/);
  assert.equal(lines.at(-1), `table3-bm25: ${exportDir}/results/table3-bm25/ (table3-bm25.csv, table3-bm25.json, table3-bm25.md)`);
  // progress counters say what they count (passages, queries, ...)
  const progress = lines.filter((l) => l.startsWith("progress  "));
  assert.ok(progress.length > 0);
  for (const l of progress) assert.match(l, /^progress {2}\S+ \d+% \(\d+\/\d+ [a-z]+/, l);
  assert.ok(progress.some((l) => / queries\)$/.test(l)), progress.join("\n"));
  const folder = join(exportDir, "results", "table3-bm25");
  assert.deepEqual(readdirSync(folder).sort(), ["table3-bm25.csv", "table3-bm25.json", "table3-bm25.md"]);
  assert.match(readFileSync(join(folder, "table3-bm25.md"), "utf8"), /^#+ Table 3 \(BM25 rows\): OR-QuAC test, mini benchmark/m);

  // A rerun is all cache hits and exports again.
  const again = cspipe(["table3-bm25", "--store", store, "--export-dir", exportDir]);
  assert.equal(again.status, 0, again.stderr);
  assert.deepEqual(again.stdout.trimEnd().split("\n").slice(-2).map((l) => l.replace(/ in [\d.]+ s$/, "")), ["ok: 0 executed, 13 cached, 0 failed", lines.at(-1)]);

  const shown = cspipe(["show", "table3-bm25", "--store", store]);
  assert.equal(shown.status, 0, shown.stderr);
  assert.equal(shown.stdout.split("\n")[0], "render-table3-bm25  (render-table v2)");
  assert.match(shown.stdout, /^ {2}outputs {3}table \(table, [\d.]+ KiB, 3 files\): .*\/outputs\/table$/m);

  const missing = cspipe(["show", "table1-bm25", "--store", store]);
  assert.deepEqual([missing.status, missing.stderr], [2, "error: target 'table1-bm25' has no result in this store yet (render-table1-bm25): run it with 'cspipe run table1-bm25'\n"]);
  const typo = cspipe(["show", "tabel3-bm25", "--store", store]);
  assert.deepEqual([typo.status, typo.stderr], [2, "error: no cached entry matches 'tabel3-bm25'; did you mean 'table3-bm25'? ('ls' lists the cached entries, 'targets' the targets)\n"]);
});

test("a target that exports nothing names its outputs in the store", () => {
  const store = join(tempDir("cspipe-results-"), "store");
  const r = cspipe(["run", "chain", "--store", store], { env: { CSPIPE_DEFINITIONS: FIXTURE_TARGETS } });
  assert.equal(r.status, 0, r.stderr);
  const tail = r.stdout.trimEnd().split("\n").slice(-2);
  assert.equal(tail[0], "chain: exports no files; its results are in the store ('show chain' tells more):");
  assert.match(tail[1]!, new RegExp(`^ {2}join-abc {2}${store}/entries/join-text/[0-9a-f]{64}/outputs/ \\(joined\\.txt\\)$`));
});
