/**
 * BM25's k1 and b, and the preprocessing option a real release may need, from the command line:
 * the lexical targets take `--set bm25.<dataset>.k1|b` and `--set data.<dataset>.allowMissingGold`
 * (the same typed description the dense targets use), and an override re-keys exactly the BM25
 * searches and what they feed. Through ./cspipe on table3-bm25 (OR-QuAC, ~15 s).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";
import { cspipe } from "./cspipe.ts";

test("params table3-bm25 lists BM25 and preprocessing; plan --set bm25.orquac.b reruns the four searches and what they feed", () => {
  const params = cspipe(["params", "table3-bm25"]);
  assert.equal(params.status, 0, params.stderr);
  assert.equal(
    params.stdout,
    [
      "table3-bm25: 3 parameters of the BM25 and preprocessing setup, values for --data mini",
      "path                          type               value  description",
      "bm25.orquac.k1                number in (0, 10]  0.9    BM25 k1 (term frequency saturation) of every BM25 search on the dataset",
      "bm25.orquac.b                 number in [0, 1]   0.4    BM25 b (document length normalisation) of every BM25 search on the dataset",
      "data.orquac.allowMissingGold  true or false      false  accept gold passages missing from the collection (counted in the preprocessing report, scored as unreachable) instead of stopping",
      "",
      "Override with: run table3-bm25 --set <path>=<value> (repeatable).",
      "",
    ].join("\n"),
  );
  const store = join(tempDir("cspipe-lexical-set-"), "store");
  assert.equal(cspipe(["run", "table3-bm25", "--store", store, "--export-dir", join(store, "..")]).status, 0);
  const plan = cspipe(["plan", "table3-bm25", "--set", "bm25.orquac.b=0.5", "--store", store]);
  assert.equal(plan.status, 0, plan.stderr);
  const rows = plan.stdout.trimEnd().split("\n").map((l) => l.replace(/ [0-9a-f]{12}$/, ""));
  assert.deepEqual(rows.slice(0, -1), [
    "cached   generate-mini-orquac",
    "cached   preprocess-collection-mini-orquac",
    "cached   build-bm25-index.mini-orquac",
    "cached   preprocess-mini-orquac.test",
    "run      search-bm25.mini-orquac.q_first",
    "pending  evaluate.bm25.mini-orquac.q_first",
    "run      search-bm25.mini-orquac.q_t",
    "pending  evaluate.bm25.mini-orquac.q_t",
    "run      search-bm25.mini-orquac.questions",
    "pending  evaluate.bm25.mini-orquac.questions",
    "run      search-bm25.mini-orquac.questions_prev",
    "pending  evaluate.bm25.mini-orquac.questions_prev",
    "pending  render-table3-bm25",
  ]);
  assert.match(rows.at(-1)!, /^13 steps: 4 cached, 4 to run, 5 pending on upstream; expected /);
  const wrong = cspipe(["plan", "table3-bm25", "--set", "bm25.orquac.b=2", "--store", store]);
  assert.deepEqual([wrong.status, wrong.stderr], [
    2,
    "error: --set 'bm25.orquac.b=2': bm25.orquac.b is out of range: expects a number in [0, 1], got '2'. Fix: give bm25.orquac.b a number in [0, 1] (now 0.4): BM25 b (document length normalisation) of every BM25 search on the dataset. [target table3-bm25]\n",
  ]);
});
