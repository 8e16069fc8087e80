/**
 * `--set <path>=<value>` over the dense setup: parsing, type coercion, ranges, wildcards, the
 * error message of each kind of mistake, cross-field rules, and applying overrides to the
 * setup record (nested paths, the base untouched). Pure: nothing is built or run.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyOverrides, nearestPaths, parseValue, typeText } from "../../pipeline/definitions/overrides.ts";
import { editDistance } from "../../pipeline/engine/nearest.ts";
import { CLAIM_REPLICATES_FIELDS, CLAIM_SEEDS_FIELDS, DEV_FIELDS, MODEL_FIELDS, SCHEDULE_FIELDS, THETA0_FIELDS, TOP_FIELDS, denseParamDefs, denseParameters, denseSetup } from "../../pipeline/definitions/dense/parameters.ts";
import { BM25_FIELDS, DATA_FIELDS } from "../../pipeline/definitions/shared-parameters.ts";
import { DENSE_SETUPS } from "../../pipeline/definitions/dense/setup.ts";
import type { DataSource } from "../../pipeline/engine/targets.ts";

const paper = denseParameters("paper");
const parse = (sets: string[], data: DataSource = "mini") => paper.parse(sets, { data });
const messages = (sets: string[], data: DataSource = "mini"): string[] => {
  const r = parse(sets, data);
  assert.ok(!r.ok, `expected ${JSON.stringify(sets)} to be refused`);
  for (const e of r.errors) assert.equal(e.name, "InputError");
  return r.errors.map((e) => e.message);
};
const LIST = "'params <target>' lists every path with its type and value.";

test("values are coerced by the field's kind: numbers, integers, booleans, integer lists", () => {
  const r = parse(["schedule.qrecc.lr=1e-4", "maxPassageLength=128", "evalBeforeTraining=true", "seeds=3, 1", "model.hidden_dropout_prob=.1", "schedule.topiocqa.epochs=1e1"]);
  assert.ok(r.ok);
  assert.deepEqual(r.overrides, {
    evalBeforeTraining: true,
    maxPassageLength: 128,
    "model.hidden_dropout_prob": 0.1,
    "schedule.qrecc.lr": 0.0001,
    "schedule.topiocqa.epochs": 10,
    seeds: [3, 1],
  });
  assert.deepEqual(Object.keys(r.overrides), Object.keys(r.overrides).sort(), "overrides are sorted by path");
  assert.deepEqual(parseValue({ kind: "number", doc: "" }, "0x10"), { ok: false, problem: "expects a number, got '0x10'" });
  assert.deepEqual(parseValue({ kind: "int", min: 0, doc: "" }, "-0"), { ok: true, value: -0 });
  assert.deepEqual(parseValue({ kind: "bool", doc: "" }, "1"), { ok: false, problem: "expects true or false, got '1'" });
});

test("the type and range of each field kind in words", () => {
  assert.equal(typeText(SCHEDULE_FIELDS.lr), "number in (0, 1]");
  assert.equal(typeText(SCHEDULE_FIELDS.epochs), "integer >= 1");
  assert.equal(typeText(TOP_FIELDS.maxQueryLength), "integer in [8, 512]");
  assert.equal(typeText(MODEL_FIELDS.hidden_dropout_prob), "number in [0, 1)");
  assert.equal(typeText(TOP_FIELDS.seeds), "comma-separated distinct integers >= 0");
  assert.equal(typeText(TOP_FIELDS.evalBeforeTraining), "true or false");
  assert.equal(typeText({ kind: "number", min: 0, doc: "" }), "number >= 0");
  assert.equal(typeText({ kind: "int", max: 3, doc: "" }), "integer <= 3");
});

test("a malformed argument names itself and shows the form", () => {
  const fix = `Fix: write e.g. --set schedule.qrecc.lr=1e-4; ${LIST}`;
  assert.deepEqual(messages(["lr"]), [`--set 'lr': not of the form <path>=<value>. ${fix}`]);
  assert.deepEqual(messages(["=3"]), [`--set '=3': not of the form <path>=<value> (the path is empty). ${fix}`]);
  assert.deepEqual(messages(["seeds="]), [`--set 'seeds=': not of the form <path>=<value> (the value is empty). ${fix}`]);
});

test("an unknown path lists the nearest valid ones; a group is not a parameter", () => {
  assert.deepEqual(messages(["lr=1e-4"]), [`--set 'lr=1e-4': unknown parameter 'lr' in the dense setup (mini, paper profile); nearest: schedule.orquac.lr, schedule.qrecc.lr, schedule.topiocqa.lr. Fix: ${LIST}`]);
  assert.deepEqual(messages(["schedule.qrecc.learning_rate=1e-4"]), [
    `--set 'schedule.qrecc.learning_rate=1e-4': unknown parameter 'schedule.qrecc.learning_rate' in the dense setup (mini, paper profile); nearest: schedule.qrecc.lr, schedule.orquac.lr, schedule.topiocqa.lr. Fix: ${LIST}`,
  ]);
  assert.deepEqual(messages(["maxPasageLength=128"]), [`--set 'maxPasageLength=128': unknown parameter 'maxPasageLength' in the dense setup (mini, paper profile); nearest: maxPassageLength, maxQueryLength. Fix: ${LIST}`]);
  assert.deepEqual(messages(["schedule.qrecc=3"]), [
    "--set 'schedule.qrecc=3': 'schedule.qrecc' is a group of parameters in the dense setup (mini, paper profile), not one. Fix: set one of them, e.g. schedule.qrecc.iterations=..., schedule.qrecc.epochs=..., schedule.qrecc.lastEpochs=....",
  ]);
  assert.deepEqual(messages(["schedule.*.nope=1"]), [`--set 'schedule.*.nope=1': unknown parameter 'schedule.*.nope' in the dense setup (mini, paper profile); nearest: schedule.orquac.n, schedule.qrecc.n, schedule.topiocqa.n. Fix: ${LIST}`]);
  assert.deepEqual(nearestPaths("zzzzzzzz", ["seeds", "shards"]), []);
  assert.equal(editDistance("kitten", "sitting"), 3);
});

test("a wrong type or an out-of-range value names the path, what it expects, its current value and meaning", () => {
  assert.deepEqual(messages(["schedule.qrecc.lr=abc"]), [
    "--set 'schedule.qrecc.lr=abc': schedule.qrecc.lr expects a number in (0, 1], got 'abc'. Fix: give schedule.qrecc.lr a number in (0, 1] (now 0.0004): AdamW learning rate of every training on the dataset.",
  ]);
  assert.deepEqual(messages(["schedule.qrecc.lr=0"]), [
    "--set 'schedule.qrecc.lr=0': schedule.qrecc.lr is out of range: expects a number in (0, 1], got '0'. Fix: give schedule.qrecc.lr a number in (0, 1] (now 0.0004): AdamW learning rate of every training on the dataset.",
  ]);
  assert.deepEqual(messages(["schedule.qrecc.epochs=2.5"]), [
    "--set 'schedule.qrecc.epochs=2.5': schedule.qrecc.epochs expects an integer >= 1, got '2.5'. Fix: give schedule.qrecc.epochs an integer >= 1 (now 10): epochs of a training: the learning rate decays to zero at the last (patience, if set, may stop it earlier).",
  ]);
  assert.deepEqual(messages(["seeds=1,1"]), [
    "--set 'seeds=1,1': seeds expects distinct integers, got '1,1' (a value repeats). Fix: give seeds comma-separated distinct integers >= 0 (now 1,2,3): seeds of the models behind the paper's claims (mean ± sd over them).",
  ]);
  assert.deepEqual(messages(["evalBeforeTraining=yes"]), [
    "--set 'evalBeforeTraining=yes': evalBeforeTraining expects true or false, got 'yes'. Fix: give evalBeforeTraining true or false (now false): log dev Recall@5 of the initial model before epoch 1 (never selected).",
  ]);
  // Every bad argument is reported, not just the first.
  assert.equal(messages(["seeds=x", "shards=0", "schedule.qrecc.lr=1e-4"]).length, 2);
});

test("wildcards set every match; an explicit path beats a wildcard in any order; nothing is set twice silently", () => {
  for (const sets of [["schedule.*.lr=1e-4", "schedule.qrecc.lr=3e-4"], ["schedule.qrecc.lr=3e-4", "schedule.*.lr=1e-4"]]) {
    const r = parse(sets);
    assert.ok(r.ok);
    assert.deepEqual(r.overrides, { "schedule.orquac.lr": 0.0001, "schedule.qrecc.lr": 0.0003, "schedule.topiocqa.lr": 0.0001 });
  }
  const dev = parse(["devPassages.*.size=500"]);
  assert.ok(dev.ok);
  assert.deepEqual(Object.keys(dev.overrides), ["devPassages.nq.size", "devPassages.orquac.size", "devPassages.qrecc.size", "devPassages.topiocqa.size"]);
  assert.deepEqual(messages(["schedule.qrecc.lr=1e-4", "schedule.qrecc.lr=2e-4"]), ["--set 'schedule.qrecc.lr=2e-4': schedule.qrecc.lr is already set by --set 'schedule.qrecc.lr=1e-4'. Fix: set each path once."]);
  assert.deepEqual(messages(["schedule.*.lr=1e-4", "*.qrecc.lr=2e-4"]), ["--set '*.qrecc.lr=2e-4': schedule.qrecc.lr is already set by --set 'schedule.*.lr=1e-4'. Fix: set each path once."]);
});

test("cross-field rules name every argument involved; rules broken by the code's values alone are not the user's", () => {
  assert.deepEqual(messages(["model.hidden_size=100", "model.num_attention_heads=3"]), [
    "--set 'model.hidden_size=100' 'model.num_attention_heads=3': θ0's hidden size must be a multiple of its attention heads (model.hidden_size=100, model.num_attention_heads=3). Fix: choose values that satisfy the rule.",
  ]);
  assert.deepEqual(messages(["model.hidden_size=65"]), [
    "--set 'model.hidden_size=65': θ0's hidden size must be a multiple of its attention heads (model.hidden_size=65, model.num_attention_heads=2). Fix: choose values that satisfy the rule.",
  ]);
  assert.deepEqual(messages(["devPassages.qrecc.bm25=3000"]), [
    "--set 'devPassages.qrecc.bm25=3000': a dev collection cannot hold more BM25 negatives per query than passages in all (devPassages.qrecc.bm25=3000, devPassages.qrecc.size=2000). Fix: choose values that satisfy the rule.",
  ]);
  assert.deepEqual(messages(["theta0.patience=3"]), [
    "--set 'theta0.patience=3': keepLast keeps the last epoch, so patience cannot stop the training early: set patience=0 or keepLast=false (theta0.keepLast=true, theta0.patience=3). Fix: choose values that satisfy the rule.",
  ]);
  assert.ok(parse(["schedule.qrecc.patience=3", "schedule.qrecc.keepLast=false"]).ok);
});

test("real data: θ0's architecture, pre-training and vocabulary cannot be set; its dev collections are samples", () => {
  const why = "it applies to the mini benchmark only (on real data θ0 is the released DPR-NQ with its BERT vocabulary)";
  assert.deepEqual(messages(["model.hidden_size=128", "theta0.lr=1e-3", "vocabSize=1000"], "real"), [
    `--set 'model.hidden_size=128': 'model.hidden_size' cannot be set here: ${why}. Fix: leave it out; ${LIST}`,
    `--set 'theta0.lr=1e-3': 'theta0.lr' cannot be set here: ${why}. Fix: leave it out; ${LIST}`,
    `--set 'vocabSize=1000': 'vocabSize' cannot be set here: ${why}. Fix: leave it out; ${LIST}`,
  ]);
  const r = parse(["devPassages.*.sample=100"], "real");
  assert.ok(r.ok);
  assert.deepEqual(r.overrides, { "devPassages.qrecc.sample": 100, "devPassages.topiocqa.sample": 100 });
  assert.equal(messages(["devPassages.qrecc.size=10"], "real").length, 1);
});

test("applying overrides sets nested paths in a new record and leaves the code's setup untouched", () => {
  const base = DENSE_SETUPS.mini.paper;
  const before = JSON.stringify(base);
  const s = denseSetup("mini", "paper", { "schedule.qrecc.lr": 1e-4, seeds: [7], "model.hidden_size": 128, "devPassages.nq.size": 500 });
  assert.equal(s.schedule.qrecc.lr, 1e-4);
  assert.equal(s.schedule.topiocqa.lr, base.schedule.topiocqa.lr);
  assert.deepEqual(s.seeds, [7]);
  assert.equal(s.model?.hidden_size, 128);
  assert.equal(s.model?.num_hidden_layers, 2);
  assert.deepEqual(s.devPassages.nq, { bm25: 5, size: 500 });
  assert.equal(JSON.stringify(base), before);
  assert.equal(s.schedule.orquac, base.schedule.orquac, "untouched branches are shared");
  assert.equal(applyOverrides(base, {}), base);
  assert.throws(() => applyOverrides(base, { "schedule.qrecc.nope": 1 }), /override schedule\.qrecc\.nope: no field 'nope'/);
});

test("the description covers the setup: every listed path exists with a value of its field's kind, in every setup", () => {
  for (const data of ["mini", "real"] as const) {
    for (const profile of ["paper", "smoke"] as const) {
      const defs = denseParamDefs(DENSE_SETUPS[data][profile], data);
      assert.equal(new Set(defs.map((d) => d.path)).size, defs.length, "paths are unique");
      for (const d of defs) {
        const want = d.field.kind === "bool" ? "boolean" : d.field.kind === "ints" ? "object" : "number";
        assert.equal(typeof d.value, want, `${data}/${profile} ${d.path}`);
        // The code's own values are valid: every field accepts its current value.
        assert.ok(d.unavailable !== undefined || parseValue(d.field, Array.isArray(d.value) ? d.value.join(",") : String(d.value)).ok, `${data}/${profile} ${d.path}=${String(d.value)}`);
      }
    }
  }
  const mini = denseParameters("paper").describe({ data: "mini" });
  // then the shared ones: BM25's k1 and b on the three datasets and mini-nq, and each dataset's preprocessing option
  const shared = 4 * Object.keys(BM25_FIELDS).length + 3 * Object.keys(DATA_FIELDS).length;
  const groups = Object.keys(TOP_FIELDS).length + Object.keys(CLAIM_SEEDS_FIELDS).length + Object.keys(CLAIM_REPLICATES_FIELDS).length + 3 * Object.keys(SCHEDULE_FIELDS).length + 4 * 2 + Object.keys(MODEL_FIELDS).length + Object.keys(THETA0_FIELDS).length + shared;
  assert.equal(mini.length, groups);
  assert.equal(mini.length, 75);
  assert.deepEqual(mini.slice(-11).map((p) => `${p.path}=${String(p.value)}`), [
    "bm25.qrecc.k1=0.82", "bm25.qrecc.b=0.68", "bm25.topiocqa.k1=0.9", "bm25.topiocqa.b=0.4", "bm25.orquac.k1=0.9", "bm25.orquac.b=0.4", "bm25.nq.k1=0.9", "bm25.nq.b=0.4",
    "data.qrecc.allowMissingGold=false", "data.topiocqa.allowMissingGold=false", "data.orquac.allowMissingGold=false",
  ]);
  assert.deepEqual(mini.find((p) => p.path === "schedule.qrecc.lr"), { path: "schedule.qrecc.lr", type: "number in (0, 1]", value: 0.0004, description: SCHEDULE_FIELDS.lr.doc });
  assert.deepEqual(Object.keys(DEV_FIELDS).sort(), ["bm25", "sample", "size"]);
  // Real: no θ0 or vocabulary rows, sampled dev collections (OR-QuAC's is released: nothing to set).
  const real = denseParameters("smoke").describe({ data: "real" }).map((p) => p.path);
  assert.equal(real.length, 45 + 3 * 2 + 3, "no BM25 on mini-nq: real data has no mini-nq");
  assert.ok(real.includes("devPassages.qrecc.sample") && !real.some((p) => p.startsWith("model.") || p.startsWith("theta0.") || p.startsWith("devPassages.orquac")));
  assert.equal(denseParameters("smoke").describe({ data: "mini" }).find((p) => p.path === "seeds")?.value.toString(), "1");
});
