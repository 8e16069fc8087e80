/**
 * `--set` on the DCSR targets (pipeline/definitions/dcsr/parameters.ts), from built graphs only
 * (nothing runs): `params table-dcsr` lists the dense setup's paths (without `seeds`,
 * `secondarySeeds` and `claimSeeds.*`, which no DCSR table reads) and the DCSR setup's under `dcsr.`; `dcsr.seeds`
 * decides which DPR and DCSR models the tables train; `dcsr.topM` reaches exactly the DCSR
 * trainings and searches; a dense override reaches DCSR and DPR alike; mistakes are refused
 * with the path to use.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Command } from "commander";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import type { Graph } from "../../pipeline/engine/graph.ts";
import { describeFailure } from "../../pipeline/engine/failures.ts";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import { formatValue, parseValue } from "../../pipeline/definitions/overrides.ts";
import { denseParameters } from "../../pipeline/definitions/dense/parameters.ts";
import { DCSR_SETUPS } from "../../pipeline/definitions/dcsr/setup.ts";
import { dcsrContext, dcsrSetupOf, denseOf } from "../../pipeline/definitions/dcsr/parameters.ts";
import { registerParamsCommand, type ParamsDocument } from "../../pipeline/commands/params.ts";
import { project } from "../engine/helpers.ts";
import { inputsIn } from "../definitions/graph-helpers.ts";

const p = project(buildTargets());

function graphOf(target: string, sets: string[] = []): Graph {
  const g = p.graph([target], sets);
  assert.ok(g.ok, g.ok ? "" : g.failures.map(describeFailure).join("\n"));
  return g.graph;
}
const failures = (target: string, sets: string[]): string[] => {
  const g = p.graph([target], sets);
  assert.ok(!g.ok, `expected ${JSON.stringify(sets)} to be refused`);
  return g.failures.map(describeFailure);
};
const names = (g: Graph, id: string): string[] => g.order.filter((s) => s.def.id === id).map((s) => s.name).sort();
const param = <T>(g: Graph, s: AnyStep, key: string): T => (g.params.get(s) as Record<string, T>)[key]!;

async function params(target: string): Promise<ParamsDocument> {
  let out = "";
  const program = new Command().exitOverride();
  registerParamsCommand(program, { project: async () => p, out: (t) => (out += t), err: (l) => assert.fail(l), setExitCode: (c) => assert.fail(`exit ${c}`) });
  await program.parseAsync(["params", target, "--json"], { from: "user" });
  return JSON.parse(out) as ParamsDocument;
}

test("params table-dcsr: the dense setup's paths but the seeds (seeds, secondarySeeds, claimSeeds, claimReplicates), then the DCSR setup's own under dcsr.", async () => {
  const doc = await params("table-dcsr");
  assert.equal(doc.space, "the dense and DCSR setups (paper profile)");
  const dense = denseParameters("paper").describe({ data: "mini" }).filter((d) => d.path !== "seeds" && d.path !== "secondarySeeds" && !d.path.startsWith("claimSeeds.") && !d.path.startsWith("claimReplicates."));
  assert.deepEqual(doc.parameters.slice(0, dense.length), JSON.parse(JSON.stringify(dense)));
  const own = DCSR_SETUPS.mini.paper;
  assert.deepEqual(doc.parameters.slice(dense.length).map((d) => [d.path, d.type, formatValue(d.value)]), [
    ["dcsr.seeds", "comma-separated distinct integers >= 0", formatValue(own.seeds)],
    ["dcsr.topM", "integer >= 1", "3000"],
    ["dcsr.maxMarkers", "integer in [1, 512]", "10"],
    ["dcsr.keepSentences", "integer >= 1", "100"],
    ["dcsr.split.minWords", "integer >= 1", "8"],
    ["dcsr.split.minTailWords", "integer >= 1", "7"],
  ]);
  // ablation-dcsr reads the same setups; the smoke target lists the smoke profile's.
  assert.deepEqual((await params("ablation-dcsr")).parameters, doc.parameters);
  assert.equal((await params("table-dcsr-smoke")).space, "the dense and DCSR setups (smoke profile)");
});

test("--set dcsr.seeds=[1,2]: every row of table-dcsr trains with seeds 1 and 2, DPR and DCSR alike", () => {
  const g = graphOf("table-dcsr", ["dcsr.seeds=[1,2]"]);
  const perSeed = ["mini-orquac.dcsr-ihn-2", "mini-orquac.dcsr", "mini-qrecc.dcsr-ihn-2", "mini-qrecc.dcsr", "mini-topiocqa.dcsr-ihn-2", "mini-topiocqa.dcsr-ihn-3", "mini-topiocqa.dcsr"];
  assert.deepEqual(names(g, "train-dcsr"), perSeed.flatMap((m) => [1, 2].map((s) => `train-dcsr.${m}.s${s}`)).sort());
  // DPR's IBN and IHN-I models of the same seeds (IHN-2 on TopiOCQA too: IHN-3 mines with it), and each seed's θ0.
  const dpr = ["mini-orquac.ibn", "mini-orquac.ihn-2", "mini-qrecc.ibn", "mini-qrecc.ihn-2", "mini-topiocqa.ibn", "mini-topiocqa.ihn-2", "mini-topiocqa.ihn-3"];
  assert.deepEqual(names(g, "train-dpr"), dpr.flatMap((m) => [1, 2].map((s) => `train-dpr.${m}.s${s}`)).sort());
  assert.deepEqual(names(g, "pretrain-dpr"), ["pretrain-dpr.mini.theta0", "pretrain-dpr.mini.theta0.s2"]);
  const render = g.byName.get("render-table-dcsr")!;
  assert.deepEqual(inputsIn(render, "metrics").filter((i) => i.startsWith("qrecc_")).sort(), ["qrecc_dcsr_ihn_s1", "qrecc_dcsr_ihn_s2", "qrecc_dcsr_s1", "qrecc_dcsr_s2", "qrecc_dpr_ibn_s1", "qrecc_dpr_ibn_s2", "qrecc_dpr_ihn_s1", "qrecc_dpr_ihn_s2"]);
  assert.match(JSON.stringify(g.params.get(render)), /seeds 1, 2 \(mean ± sd\)/, "the caption names the seeds");
  // ablation-dcsr: three ablations x three datasets per seed, mini-nq's three from θ0's seed only.
  const ab = graphOf("ablation-dcsr", ["dcsr.seeds=2,3"]);
  const trains = [...names(ab, "train-dcsr"), ...names(ab, "pretrain-dcsr")];
  assert.equal(trains.length, 9 * 2 + 3);
  assert.deepEqual(trains.filter((n) => n.startsWith("train-dcsr.mini-qrecc")), ["train-dcsr.mini-qrecc.dcsr-bm25-1.s2", "train-dcsr.mini-qrecc.dcsr-bm25-1.s3", "train-dcsr.mini-qrecc.dcsr-bm25-2.s2", "train-dcsr.mini-qrecc.dcsr-bm25-2.s3", "train-dcsr.mini-qrecc.dcsr.s2", "train-dcsr.mini-qrecc.dcsr.s3"]);
});

test("dcsr.topM changes the DCSR trainings' model selection and the HasAns searches, nothing else", () => {
  const plain = graphOf("table-dcsr");
  const m = graphOf("table-dcsr", ["dcsr.topM=500"]);
  assert.deepEqual([...m.byName.keys()].sort(), [...plain.byName.keys()].sort(), "the same steps by name");
  const differ = m.order.filter((s) => JSON.stringify(m.params.get(s)) !== JSON.stringify(plain.params.get(plain.byName.get(s.name)!))).map((s) => s.def.id);
  assert.deepEqual([...new Set(differ)].sort(), ["render-table", "search-dcsr", "train-dcsr"], "the table's caption names M");
  for (const s of m.order.filter((x) => x.def.id === "train-dcsr")) assert.equal(param<number>(m, s, "dev_top_m"), 500, s.name);
  for (const s of m.order.filter((x) => x.def.id === "search-dcsr")) assert.equal(param<number>(m, s, "m"), 500, s.name);
  // The DPR rows are the dense graph's own step objects: the DCSR overrides do not reach their memo keys.
  const dprPlain = plain.byName.get("train-dpr.mini-qrecc.ibn.s1")!;
  assert.equal(m.byName.get("train-dpr.mini-qrecc.ibn.s1"), dprPlain);
});

test("a dense override reaches DCSR and DPR alike; dcsr.split and dcsr.maxMarkers reach the splitter, the tokenizer and the trainer", () => {
  const g = graphOf("table-dcsr", ["schedule.qrecc.lr=1e-4", "dcsr.split.minWords=5", "dcsr.maxMarkers=4"]);
  for (const s of g.order.filter((x) => (x.def.id === "train-dcsr" || x.def.id === "train-dpr") && x.name.includes("mini-qrecc"))) assert.equal(param<number>(g, s, "lr"), 1e-4, s.name);
  // The other datasets keep their own mini learning rates (TopiOCQA 8e-4, OR-QuAC 2e-4).
  const ownLr = (name: string) => (name.includes("mini-topiocqa") ? 8e-4 : 2e-4);
  for (const s of g.order.filter((x) => (x.def.id === "train-dcsr" || x.def.id === "train-dpr") && !x.name.includes("mini-qrecc"))) assert.equal(param<number>(g, s, "lr"), ownLr(s.name), s.name);
  for (const s of g.order.filter((x) => x.def.id === "split-sentences")) assert.deepEqual(g.params.get(s), { minWords: 5, minTailWords: 7 });
  for (const s of g.order.filter((x) => x.def.id === "tokenize-dcsr-passages")) assert.equal(param<number>(g, s, "maxMarkers"), 4);
  for (const s of g.order.filter((x) => x.def.id === "train-dcsr")) assert.equal(param<number>(g, s, "max_markers"), 4);
  // The context: dense overrides where DPR's builders read them, DCSR's with the prefix dropped; none spells the plain context.
  const ctx = dcsrContext({ data: "mini", overrides: { "dcsr.topM": 500, "schedule.qrecc.lr": 1e-4 } }, "paper");
  assert.deepEqual(ctx, { data: "mini", profile: "paper", overrides: { "schedule.qrecc.lr": 1e-4 }, dcsrOverrides: { topM: 500 } });
  assert.deepEqual(denseOf(ctx), { data: "mini", profile: "paper", overrides: { "schedule.qrecc.lr": 1e-4 } });
  assert.equal(dcsrSetupOf(ctx).topM, 500);
  assert.equal(DCSR_SETUPS.mini.paper.topM, 3000, "the code's setup is untouched");
  assert.deepEqual(dcsrContext({ data: "mini", overrides: {} }, "smoke"), { data: "mini", profile: "smoke" });
});

test("mistakes are refused naming the path to use: seeds, an unknown dcsr path, keepSentences above topM, topM below a run's depth", () => {
  assert.deepEqual(failures("table-dcsr", ["seeds=1,2"]), [
    "--set 'seeds=1,2': 'seeds' cannot be set here: it does not apply to the DCSR tables, whose rows (DPR and DCSR alike) train with dcsr.seeds: set dcsr.seeds instead. Fix: leave it out; 'params <target>' lists every path with its type and value. [target table-dcsr]",
  ]);
  assert.deepEqual(failures("ablation-dcsr", ["dcsr.topm=100"]), [
    "--set 'dcsr.topm=100': unknown parameter 'dcsr.topm' in the dense and DCSR setups (mini, paper profile); nearest: dcsr.topM. Fix: 'params <target>' lists every path with its type and value. [target ablation-dcsr]",
  ]);
  assert.deepEqual(failures("table-dcsr", ["dcsr.topM=80", "dcsr.keepSentences=90", "schedule.qrecc.k=50"]), [
    "--set 'dcsr.keepSentences=90' 'dcsr.topM=80': a search cannot keep more sentences per query than it retrieves (dcsr.keepSentences=90, dcsr.topM=80). Fix: choose values that satisfy the rule. [target table-dcsr]",
    "--set 'dcsr.topM=80': HasAns over the top dcsr.topM sentences ranks at most that many passages, fewer than the depth the runs are cut at (dcsr.topM=80, schedule.topiocqa.k=100, schedule.orquac.k=100). Fix: choose values that satisfy the rule. [target table-dcsr]",
  ]);
  // The smoke profile builds QReCC only: only its depth counts.
  assert.ok(p.graph(["table-dcsr-smoke"], ["dcsr.topM=60", "dcsr.keepSentences=60", "schedule.qrecc.k=60"]).ok);
  assert.deepEqual(parseValue({ kind: "ints", doc: "" }, " [3, 1] "), { ok: true, value: [3, 1] });
  assert.deepEqual(parseValue({ kind: "ints", doc: "" }, "[]"), { ok: false, problem: "expects comma-separated distinct integers (e.g. 1,2,3), got '[]'" });
});
