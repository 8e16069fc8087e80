/**
 * Time estimates a fresh store can trust: the reference run's step durations (pipeline/definitions/
 * reference-costs.json) put a fresh `plan` of the default target (the graph of the measured cold run)
 * within a factor of 1.5 of that cold run (README: 66 min 54 s on the 2-core Intel Xeon, 2026-12-01), the plan says where its durations
 * come from and calls an estimate made of cost hints a guess, and `targets` lists every target's
 * cold time and GPU need.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { expectedSeconds } from "../../pipeline/engine/schedule.ts";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import type { PlanDocument } from "../../pipeline/commands/plan.ts";
import { project } from "../engine/helpers.ts";
import { tempDir } from "../tmp.ts";
import { cspipe } from "./cspipe.ts";

const COLD_RUN_SECONDS = 66 * 60 + 54;

test("a fresh store's plan of the default target is within 1.5x of the measured cold run, and says where its durations come from", () => {
  const store = join(tempDir("cspipe-estimates-"), "store");
  const json = cspipe(["plan", "--store", store, "--json"]);
  assert.equal(json.status, 0, json.stderr);
  const doc = JSON.parse(json.stdout) as PlanDocument;
  const s = doc.summary;
  assert.ok(s.expectedSeconds >= COLD_RUN_SECONDS / 1.5 && s.expectedSeconds <= COLD_RUN_SECONDS * 1.5, `expected ${s.expectedSeconds} s against a cold run of ${COLD_RUN_SECONDS} s`);
  assert.equal(s.estimates.recorded, 0);
  assert.equal(s.estimates.recorded + s.estimates.reference + s.estimates.hint, 1170);
  assert.ok(doc.nodes.filter((n) => n.stepId === "train-dpr" || n.stepId === "pretrain-dpr").every((n) => n.estimate === "reference"), "every training from the reference");
  assert.ok(s.estimates.hintSeconds < 0.25 * s.estimates.seconds, "not a guess");
  const text = cspipe(["plan", "--store", store]);
  const e = s.estimates;
  assert.match(text.stdout, new RegExp(`\\n1170 steps: 0 cached, 4 to run, 1166 pending on upstream; expected (\\d+:)?\\d+:\\d\\d with 2 at once \\(durations: ${e.reference} from the reference run${e.hint > 0 ? `, ${e.hint} guessed from cost hints` : ""}\\)\\n$`));
});

test("real data has no reference run: the estimate says it is a guess", () => {
  const r = cspipe(["plan", "table2-bm25", "--data", "real", "--allow-unpinned", "--store", join(tempDir("cspipe-estimates-"), "store")]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\n33 steps: 0 cached, 6 to run, 27 pending on upstream; expected \d+:\d\d with 2 at once \(a guess: durations: 33 guessed from cost hints\)\n$/);
});

test("a step's expected duration: this store's record first, then the reference run, then its cost hint", () => {
  const p = project(buildTargets());
  const g = p.graph(["table2-bm25"]);
  assert.ok(g.ok);
  const search = g.graph.byName.get("search-bm25.mini-qrecc.q_t")!;
  const params = g.graph.params.get(search);
  const reference = p.targets.referenceCost("mini")!;
  assert.equal(typeof reference(search), "number");
  assert.deepEqual(expectedSeconds(search, params, { recorded: new Map([["search-bm25.mini-qrecc.q_t", 7]]), reference }), { seconds: 7, source: "recorded" });
  assert.deepEqual(expectedSeconds(search, params, { recorded: new Map(), reference }), { seconds: reference(search)!, source: "reference" });
  assert.deepEqual(expectedSeconds(search, params, { recorded: new Map() }), { seconds: 1, source: "hint" });
  assert.equal(p.targets.referenceCost("real"), undefined);
});

test("targets: each target's cold time and GPU need beside its description", () => {
  const mini = cspipe(["targets"]);
  assert.equal(mini.status, 0, mini.stderr);
  const row = (out: string, name: string) => out.split("\n").find((l) => l.slice(2).startsWith(`${name} `))!;
  assert.match(row(mini.stdout, "report"), /^\* report +(\d+:)?\d+:\d\d +GPU optional +report\/index\.md and report\/index\.html linking every table and figure/);
  assert.match(row(mini.stdout, "table2-bm25"), /^ {2}table2-bm25 +\d+:\d\d +CPU +Table 2's BM25 block/);
  assert.match(mini.stdout, /\n\(--data mini; time: a cold run with 2 steps at once, from the reference run's step durations, \? where cost hints carry a quarter of it or more\)\n$/);
  const real = cspipe(["targets", "--data", "real"]);
  assert.match(row(real.stdout, "table2"), /^ {2}table2 +\d+:\d\d:\d\d\? +needs a GPU +Table 2 \(full\)/);
  assert.match(row(real.stdout, "table2-bm25"), /^ {2}table2-bm25 +\d+:\d\d\? +CPU /);
});
