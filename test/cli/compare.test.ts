/**
 * Experiments end to end on a tiny target with a typed setup (test/fixtures/engine/override-targets.ts):
 * `run --set` computes only what the override reaches and records the run's start, data source
 * and overrides; `compare` puts params against metrics from the evaluations' cached outputs
 * (terminal table, CSV), names runs whose evaluations gc removed, and selects runs by target or
 * record; `params` lists the setup. The pure core is tested on hand-made records too.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { exportRootOf } from "../../pipeline/session.ts";
import type { RunRecord } from "../../pipeline/engine/store.ts";
import { buildComparison, comparisonCsv, comparisonText, matchesPattern, meanOverSeeds, type RunEvaluation, type RunInput } from "../../pipeline/commands/compare-core.ts";
import { selectRuns } from "../../pipeline/commands/compare.ts";
import { paramsText } from "../../pipeline/commands/params.ts";
import { buildTargets, TINY_PARAMETERS } from "../fixtures/engine/override-targets.ts";
import { ROOT, project, run, tempDir } from "../engine/helpers.ts";

const MAIN = join(ROOT, "pipeline", "main.ts");
const DEFS = join(ROOT, "test", "fixtures", "engine", "override-targets.ts");
const cli = (args: string[]) => spawnSync(process.execPath, ["--import", "tsx", MAIN, ...args], { cwd: ROOT, env: { ...process.env, CSPIPE_DEFINITIONS: DEFS }, encoding: "utf8" });

const record = (over: Partial<RunRecord> & Pick<RunRecord, "time">): RunRecord => ({ targets: ["table2"], keys: [], steps: {}, status: "ok", ...over });
const K = (c: string) => c.repeat(64);

test("compare's core: rows by evaluation then start time, overrides as path=value, duplicates once, gc losses named; CSV", () => {
  const runs: RunInput[] = [
    {
      file: "2026-11-24T06-00-00-000Z-1.json",
      record: record({ time: "2026-11-24T06:05:00.000Z", started: "2026-11-24T06:00:00.000Z", about: { data: "mini" } }),
      evaluations: [
        { step: "evaluate.dense.mini-qrecc.ibn.s1.history", key: K("a"), metrics: { n: 325, values: { mrr: 0.18521, "recall@10": 0.4 } } },
        { step: "evaluate.bm25.mini-qrecc.q_t", key: K("b"), metrics: { n: 325, values: { mrr: 0.1 } } },
      ],
    },
    {
      // An older record: no start time, data source or overrides.
      file: "2026-11-23T10-00-00-000Z-7.json",
      record: record({ time: "2026-11-23T10:00:00.000Z" }),
      evaluations: [{ step: "evaluate.dense.mini-qrecc.ibn.s1.history", key: K("a"), metrics: { n: 325, values: { mrr: 0.18521, "recall@10": 0.4 } } }],
    },
    {
      file: "2026-11-24T07-00-00-000Z-2.json",
      record: record({ time: "2026-11-24T07:09:00.000Z", started: "2026-11-24T07:00:00.000Z", targets: ["table2", "table4"], about: { data: "mini", overrides: { seeds: [1, 2], "schedule.qrecc.lr": 0.0001 } } }),
      evaluations: [
        { step: "evaluate.dense.mini-qrecc.ibn.s1.history", key: K("c"), metrics: { n: 325, values: { mrr: 0.2, "recall@10": 0.45 } } },
        { step: "evaluate.bm25.mini-qrecc.q_t", key: K("b"), metrics: { n: 325, values: { mrr: 0.1 } } },
        { step: "evaluate.dense.mini-qrecc.ibn.s2.history", key: K("d"), metrics: null },
      ],
    },
    {
      // A rerun of the first: the same entries, the same (no) overrides.
      file: "2026-11-24T08-00-00-000Z-3.json",
      record: record({ time: "2026-11-24T08:00:01.000Z", started: "2026-11-24T08:00:00.000Z", about: { data: "mini" } }),
      evaluations: [{ step: "evaluate.dense.mini-qrecc.ibn.s1.history", key: K("a"), metrics: { n: 325, values: { mrr: 0.18521, "recall@10": 0.4 } } }],
    },
  ];
  const c = buildComparison(runs, { metrics: ["mrr", "recall@10"] });
  assert.deepEqual(
    c.rows.map((r) => [r.evaluation, r.run, r.data, r.overrides.join(" "), r.metrics]),
    [
      ["evaluate.bm25.mini-qrecc.q_t", "2026-11-24T06-00-00-000Z-1.json", "mini", "", [0.1, null]],
      ["evaluate.bm25.mini-qrecc.q_t", "2026-11-24T07-00-00-000Z-2.json", "mini", "schedule.qrecc.lr=0.0001 seeds=1,2", [0.1, null]],
      ["evaluate.dense.mini-qrecc.ibn.s1.history", "2026-11-23T10-00-00-000Z-7.json", "?", "", [0.18521, 0.4]],
      ["evaluate.dense.mini-qrecc.ibn.s1.history", "2026-11-24T07-00-00-000Z-2.json", "mini", "schedule.qrecc.lr=0.0001 seeds=1,2", [0.2, 0.45]],
      ["evaluate.dense.mini-qrecc.ibn.s1.history", "2026-11-24T08-00-00-000Z-3.json", "mini", "", [0.18521, 0.4]],
    ],
  );
  assert.equal(buildComparison(runs, { metrics: ["mrr"], all: true }).rows.length, 6);
  assert.deepEqual(
    buildComparison(runs, { metrics: ["mrr"], evals: ["ibn.s*.history"] }).rows.map((r) => r.run),
    ["2026-11-23T10-00-00-000Z-7.json", "2026-11-24T07-00-00-000Z-2.json", "2026-11-24T08-00-00-000Z-3.json"],
  );
  assert.equal(
    comparisonText(buildComparison(runs, { metrics: ["mrr", "recall@10"], evals: ["ibn"] })),
    [
      "started              targets        data  overrides                           evaluation                                  N     mrr  recall@10",
      "2026-11-23 10:00:00  table2         ?     -                                   evaluate.dense.mini-qrecc.ibn.s1.history  325  0.1852     0.4000",
      "2026-11-24 07:00:00  table2,table4  mini  schedule.qrecc.lr=0.0001 seeds=1,2  evaluate.dense.mini-qrecc.ibn.s1.history  325  0.2000     0.4500",
      "2026-11-24 08:00:00  table2         mini  -                                   evaluate.dense.mini-qrecc.ibn.s1.history  325  0.1852     0.4000",
      "note: run 2026-11-24T07-00-00-000Z-2.json (2026-11-24 07:00:00, table2,table4): 1 of 2 evaluations were removed from the store (gc); not shown",
      "",
    ].join("\n"),
  );
  assert.equal(
    comparisonCsv(buildComparison(runs.slice(2, 3), { metrics: ["mrr", "recall@10"], evals: ["s1"] })),
    "started,run,targets,data,overrides,evaluation,key,n,mrr,recall@10\r\n" +
      `2026-11-24T07:00:00.000Z,2026-11-24T07-00-00-000Z-2.json,"table2,table4",mini,"schedule.qrecc.lr=0.0001 seeds=1,2",evaluate.dense.mini-qrecc.ibn.s1.history,${K("c")},325,0.2,0.45\r\n`,
  );
  assert.equal(comparisonText(buildComparison([], { metrics: ["mrr"] })), "no evaluations of the selected runs are in the store\n");
  assert.ok(matchesPattern("evaluate.dense.x.s1.history", "dense.*.history") && !matchesPattern("evaluate.bm25.x", "dense"));
  const sel = selectRuns(runs, ["table4", "2026-11-23T10"]);
  assert.deepEqual(sel.runs.map((r) => r.file), ["2026-11-23T10-00-00-000Z-7.json", "2026-11-24T07-00-00-000Z-2.json"]);
  assert.deepEqual(selectRuns(runs, ["nope"]).unmatched, ["nope"]);
});

test("--mean-seeds: one row per model, each metric's mean over its seeds; a seed gc removed makes the group gone", () => {
  const e = (step: string, key: string, mrr: number | null, r10?: number): RunEvaluation => ({ step, key: K(key), metrics: mrr === null ? null : { n: 100, values: { mrr, ...(r10 === undefined ? {} : { "recall@10": r10 }) } } });
  const merged = meanOverSeeds([
    e("evaluate.dense.mini-qrecc.ibn.s1.history", "a", 0.2, 0.5),
    e("evaluate.dense.mini-qrecc.ibn.s2.history", "b", 0.3, 0.6),
    e("evaluate.dense.mini-qrecc.ibn.s3.history", "c", 0.4),
    e("evaluate.dense.mini-qrecc.shortcut.s1.history_without_q", "d", 0.1),
    e("evaluate.dense.mini-qrecc.shortcut.s2.history_without_q", "e", null),
    e("evaluate.bm25.mini-qrecc.q_t", "f", 0.15),
  ]);
  assert.deepEqual(merged, [
    e("evaluate.bm25.mini-qrecc.q_t", "f", 0.15),
    { step: "evaluate.dense.mini-qrecc.ibn.s*.history (3 seeds)", key: `${K("a")}+${K("b")}+${K("c")}`, metrics: { n: 300, values: { mrr: (0.2 + 0.3 + 0.4) / 3 } } },
    { step: "evaluate.dense.mini-qrecc.shortcut.s*.history_without_q (2 seeds)", key: `${K("d")}+${K("e")}`, metrics: null },
  ]);
  const c = buildComparison([{ file: "r.json", record: record({ time: "2026-11-24T09:00:00.000Z" }), evaluations: [e("evaluate.x.s1.y", "a", 0.2), e("evaluate.x.s2.y", "b", 0.4)] }], { metrics: ["mrr"], meanSeeds: true });
  assert.deepEqual(c.rows.map((r) => [r.evaluation, r.n, r.metrics]), [["evaluate.x.s*.y (2 seeds)", 200, [0.30000000000000004]]]);
  // a seed's other fine-tunings (claimReplicates) join its model's row
  const replicas = meanOverSeeds([e("evaluate.x.s1.y", "a", 0.2), e("evaluate.x.s1.r2.y", "b", 0.4), e("evaluate.x.s2.y", "c", 0.6)]);
  assert.deepEqual(replicas.map((r) => [r.step, r.metrics?.values.mrr]), [["evaluate.x.s*.y (3 models)", (0.2 + 0.4 + 0.6) / 3]]);
});

test("an overridden run computes only what the override reaches, records what it was built with, and exports elsewhere", async () => {
  const store = join(tempDir(), "store");
  const p = project(buildTargets(), { store });
  const first = await run(p, ["scored"]);
  assert.ok(first.outcome.ok);
  assert.deepEqual(first.executed, ["make-number", "score-number"]);
  const scale = await run(p, ["scored"], { sets: ["eval.scale=0.25"] });
  assert.deepEqual([scale.executed, scale.hits], [["score-number"], ["make-number"]]);
  const value = await run(p, ["scored"], { sets: ["base.value=3", "eval.scale=0.25"] });
  assert.deepEqual(value.executed, ["make-number", "score-number"]);
  const again = await run(p, ["scored"], { sets: ["eval.scale=.25"] });
  assert.deepEqual(again.executed, [], "the same override again: all cached");
  const refused = await run(p, ["plain"], { sets: ["eval.scale=0.25"] });
  assert.ok(!refused.outcome.ok && refused.outcome.analysis[0]?.reason === "invalid-override");

  const records = await p.store.runRecords();
  assert.equal(records.length, 4, "a refused run leaves no record");
  const [r0, r1, r2] = records.map((r) => r.record);
  assert.deepEqual(r0!.about, { data: "mini" });
  assert.deepEqual(r1!.about, { data: "mini", overrides: { "eval.scale": 0.25 } });
  assert.deepEqual(r2!.about, { data: "mini", overrides: { "base.value": 3, "eval.scale": 0.25 } });
  for (const r of [r0!, r1!, r2!]) assert.ok(r.started !== undefined && r.started <= r.time);
  assert.notEqual(r0!.steps["score-number"]!.key, r1!.steps["score-number"]!.key);
  assert.equal(r0!.steps["make-number"]!.key, r1!.steps["make-number"]!.key);

  // Exports: the plain run's go to the root (./report/), an overridden run's to experiments/<id>/, an explicit dir wins.
  assert.equal(exportRootOf("/p", undefined, {}), "/p");
  assert.match(exportRootOf("/p", undefined, { "eval.scale": 0.25 }), /^\/p\/experiments\/exp-[0-9a-f]{10}$/);
  assert.equal(exportRootOf("/p", "/elsewhere", { "eval.scale": 0.25 }), "/elsewhere");
  assert.equal(exportRootOf("/p", undefined, { "eval.scale": 0.25 }), exportRootOf("/q", undefined, { "eval.scale": 0.25 }).replace("/q", "/p"));

  // A hand-made record of an older run whose evaluation gc removed since.
  writeFileSync(join(store, "runs", "2026-01-01T00-00-00-000Z-1.json"), JSON.stringify(record({ time: "2026-01-01T00:00:00.000Z", targets: ["scored"], keys: [K("e")], steps: { "score-number": { stepId: "score-number", key: K("e") } } })));

  const csv = join(tempDir(), "compare.csv");
  const c = cli(["--store", store, "compare", "scored", "--metric", "mrr,recall@10", "--csv", csv]);
  assert.equal(c.status, 0, c.stderr);
  const lines = c.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 5, c.stdout);
  assert.match(lines[0]!, /^started\s+targets\s+data\s+overrides\s+evaluation\s+N\s+mrr\s+recall@10$/);
  assert.match(lines[1]!, /^\S+ \S+\s+scored\s+mini\s+-\s+score-number\s+2\s+1\.0000\s+0\.5000$/);
  // By start time; the fourth run repeats the second (same entry, same overrides): shown once, as the newest.
  assert.match(lines[2]!, /^\S+ \S+\s+scored\s+mini\s+base\.value=3 eval\.scale=0\.25\s+score-number\s+2\s+0\.7500\s+0\.2500$/);
  assert.match(lines[3]!, /^\S+ \S+\s+scored\s+mini\s+eval\.scale=0\.25\s+score-number\s+2\s+0\.5000\s+0\.2500$/);
  assert.equal(lines[4], "note: run 2026-01-01T00-00-00-000Z-1.json (2026-01-01 00:00:00, scored): 1 of 1 evaluations were removed from the store (gc); not shown");
  const rows = readFileSync(csv, "utf8").split("\r\n");
  assert.equal(rows[0], "started,run,targets,data,overrides,evaluation,key,n,mrr,recall@10");
  assert.equal(rows[2]!.split(",").slice(2).join(","), `scored,mini,base.value=3 eval.scale=0.25,score-number,${r2!.steps["score-number"]!.key},2,0.75,0.25`);
  assert.equal(rows.length, 5, "3 rows, a header and the final CRLF");
  const unknown = cli(["--store", store, "compare", "nope"]);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /error: no run record matches 'nope' in .*\/runs\. Fix: name a target a run built \(scored\) or a record file/);
});

test("params lists the setup; --json is one document; a target without parameters is refused", () => {
  const doc = { schema: "cspipe.params/1" as const, target: "scored", data: "mini", space: TINY_PARAMETERS.name, parameters: TINY_PARAMETERS.describe({ data: "mini" }) };
  assert.equal(
    paramsText(doc),
    [
      "scored: 2 parameters of the tiny setup, values for --data mini",
      "path        type              value  description",
      "base.value  number            2      the number made",
      "eval.scale  number in [0, 1]  0.5    the score's scale",
      "",
      "Override with: run scored --set <path>=<value> (repeatable).",
      "",
    ].join("\n"),
  );
  const json = cli(["params", "scored", "--json"]);
  assert.equal(json.status, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout), JSON.parse(JSON.stringify(doc)));
  const none = cli(["params", "plain"]);
  assert.equal(none.status, 2);
  assert.equal(none.stderr.trim(), "error: target 'plain' takes no --set overrides (its steps read no typed setup). Targets that do: scored");
});
