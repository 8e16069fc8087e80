/**
 * The dense targets build and analyze (nothing runs): the whole reproduction is one valid
 * graph, and the iterative loop is wired as the paper describes: every iteration trains
 * from θ0, iteration i's negatives are mined by iteration i-1's model on the training
 * turns, and a change upstream (iteration 1's schedule) changes every later iteration.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { graphOf, producer } from "./graph-helpers.ts";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import { modelOf, theta0Id, type DenseContext } from "../../pipeline/definitions/dense/models.ts";
import { THETA0_SEED } from "../../pipeline/definitions/dense/base.ts";
import { ihn, mined } from "../../pipeline/definitions/dense/variants.ts";
import { DENSE_SETUPS, type SeedHungryClaim } from "../../pipeline/definitions/dense/setup.ts";
import type { ClaimSpec } from "../../steps/findings/claims.ts";
import { wiredInputs } from "../../pipeline/engine/wiring.ts";

const mini = { data: "mini" } as const;

test("claimSeeds and claimReplicates: the claims' models train with their seeds and fine-tunings per θ0, the tables and other claims keep seeds", () => {
  const upTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);
  const paper = DENSE_SETUPS.mini.paper;
  assert.deepEqual(paper.claimSeeds, { "shortcut-collapses-on-switch": upTo(10), "hard-negatives-help-orquac": upTo(6), "ihn-iterations-improve": upTo(14) });
  assert.deepEqual(paper.claimReplicates, { "shortcut-collapses-on-switch": 3, "hard-negatives-help-orquac": 1, "ihn-iterations-improve": 1 });
  const five = upTo(5);
  const overrides = { "claimSeeds.shortcut-collapses-on-switch": [5, 4], "claimReplicates.shortcut-collapses-on-switch": 2, "claimSeeds.hard-negatives-help-orquac": five, "claimSeeds.ihn-iterations-improve": upTo(4) };
  const g = graphOf(buildTargets().get("report")!.steps({ ...mini, overrides }));
  const findings = g.order.find((s) => s.def.id === "check-findings")!;
  const claims = (findings.params as { claims: ClaimSpec[] }).claims;
  const claim = (id: string): ClaimSpec => claims.find((c) => c.id === id)!;
  const inputsOf = (id: string): string[][] => {
    const r = claim(id).rule;
    return r.kind === "ratio" ? [r.num.inputs, r.den.inputs] : r.kind === "gain" ? [r.better.inputs, r.worse.inputs] : r.kind === "rise" ? r.steps.map((o) => o.inputs) : [];
  };
  // seeds and claimSeeds together, ascending; replicates seed-major, each named by its θ0's seed in `units`
  assert.deepEqual(inputsOf("shortcut-collapses-on-switch")[0], five.flatMap((s) => [`qrecc_shortcut_s${s}`, `qrecc_shortcut_s${s}_r2`]));
  assert.deepEqual(claim("shortcut-collapses-on-switch").units, five.flatMap((s) => [s, s]));
  assert.deepEqual(inputsOf("hard-negatives-help-orquac"), [five.map((s) => `orquac_ihn_2_s${s}`), five.map((s) => `orquac_ibn_s${s}`)]);
  assert.equal(claim("hard-negatives-help-orquac").units, undefined);
  assert.deepEqual(inputsOf("ihn-iterations-improve"), ["ibn", "ihn_2", "ihn_3"].map((m) => upTo(4).map((s) => `topiocqa_${m}_s${s}`)));
  assert.deepEqual(inputsOf("shortcut-keeps-recall")[0], [1, 2, 3].map((s) => `qrecc_shortcut_s${s}`));
  assert.deepEqual(inputsOf("dense-beats-bm25-orquac")[0], [1, 2, 3].map((s) => `orquac_ihn_2_s${s}`));
  assert.deepEqual(inputsOf("hard-negatives-help-topiocqa")[0], [1, 2, 3].map((s) => `topiocqa_ihn_3_s${s}`));
  const byName = new Map(g.order.map((s) => [s.name, s]));
  for (const s of ["pretrain-dpr.mini.theta0.s5", "train-dpr.mini-qrecc.shortcut.s5", "train-dpr.mini-orquac.ihn-2.s4", "train-dpr.mini-topiocqa.ihn-3.s4"]) assert.ok(byName.has(s), s);
  for (const s of ["train-dpr.mini-qrecc.ibn.s4", "train-dpr.mini-topiocqa.shortcut.s4", "train-dpr.mini-qrecc.shortcut.s6", "train-dpr.mini-qrecc.shortcut.s5.r3", "train-dpr.mini-orquac.ibn.s1.r2"]) assert.ok(!byName.has(s), s);
  // A replicate: the seed's θ0, its own trainer seed (the study seed + 1000 per replicate after the first).
  const [first, second] = ["train-dpr.mini-qrecc.shortcut.s5", "train-dpr.mini-qrecc.shortcut.s5.r2"].map((n) => byName.get(n)!);
  assert.equal(producer(second!, "init"), producer(first!, "init"));
  assert.deepEqual([(first!.params as { seed: number }).seed, (second!.params as { seed: number }).seed], [5, 1005]);
});

test("a replicate's trainer seed must stay clear of the study seeds: seeds of 1000 or more with replicates are refused", () => {
  const space = buildTargets().get("report")!.parameters!;
  const refused = space.parse(["claimSeeds.shortcut-collapses-on-switch=1,1000", "claimReplicates.shortcut-collapses-on-switch=2"], mini);
  assert.ok(!refused.ok && refused.errors.some((e) => /seeds must be below 1000/.test(e.message)), JSON.stringify(refused));
  assert.equal(space.parse(["claimSeeds.shortcut-collapses-on-switch=1,1000", "claimReplicates.shortcut-collapses-on-switch=1"], mini).ok, true);
  assert.equal(space.parse(["seeds=1,2000", "claimReplicates.shortcut-collapses-on-switch=3"], mini).ok, false, "the claim's models include those of `seeds`");
});

test("model selection: the mini trainings keep their last epoch, real data DPR's best dev Recall@5", () => {
  const selects = (data: "mini" | "real") => {
    const g = graphOf(buildTargets().get("report")!.steps({ data, overrides: {} }));
    return new Set(g.order.filter((s) => /^(pre)?train-d(pr|csr)$/.test(s.def.id) && (s.params as { epochs: number }).epochs > 0).map((s) => (s.params as { select: string }).select));
  };
  assert.deepEqual([...selects("mini")], ["last"]);
  assert.deepEqual([...selects("real")], ["best"]);
});

test("the default target is the report of the whole reproduction and analyzes cleanly (paper and smoke)", () => {
  const targets = buildTargets();
  assert.equal(targets.default, "report");
  // θ0 per seed, and per seed QReCC (shortcut, IBN, IHN-2) + TopiOCQA (shortcut, IBN, IHN-2, IHN-3) + OR-QuAC (IBN, IHN-2),
  // plus QReCC's BM25 / CQR / BM25-rewrite negatives and the released-code ablation with the first seed only;
  // the claims' extra seeds add their θ0 and their models (QReCC's shortcut for the switch collapse, OR-QuAC's IBN and
  // IHN-2, TopiOCQA's IBN, IHN-2 and IHN-3 for the rise), and each replicate after the first its models again.
  for (const [name, profile] of [["report", "paper"], ["report-smoke", "smoke"]] as const) {
    const setup = DENSE_SETUPS.mini[profile];
    const all = (claim: SeedHungryClaim): number[] => [...new Set([...setup.seeds, ...setup.claimSeeds[claim]])];
    const extra = (claim: SeedHungryClaim): number[] => all(claim).filter((s) => !setup.seeds.includes(s));
    const models = (claim: SeedHungryClaim, perChain: number): number => perChain * (extra(claim).length + (setup.claimReplicates[claim] - 1) * all(claim).length);
    const theta0s = new Set([...setup.seeds, ...Object.values(setup.claimSeeds).flat()]).size;
    const seeds = setup.seeds.length;
    const g = graphOf(targets.get(name)!.steps(mini));
    const trains = g.order.filter((s) => s.def.id === "train-dpr" || s.def.id === "pretrain-dpr").map((s) => s.name);
    const claims = models("shortcut-collapses-on-switch", 1) + models("hard-negatives-help-orquac", 2) + models("ihn-iterations-improve", 3);
    assert.equal(trains.length, theta0s + 9 * seeds + 4 + claims, trains.join(", "));
    assert.ok(g.order.some((s) => s.def.id === "write-report"));
    assert.ok(g.order.some((s) => s.def.id === "check-findings"));
  }
});

const MINI: DenseContext = { data: "mini", profile: "paper" };

test("CQR negatives of seed s are mined by the θ0 that seed trains from", () => {
  for (const seed of [1, 2]) {
    const train = modelOf(MINI, mined("qrecc", "cqr", seed)).step;
    const search = producer(producer(producer(train, "examples"), "negatives"), "run");
    const encoders = wiredInputs(search).map((w) => w.ref.step).filter((s) => s.def.id === "encode-queries-torch");
    assert.equal(encoders.length, 1);
    assert.equal(producer(encoders[0]!, "model"), producer(train, "init"));
    assert.equal(producer(train, "init"), modelOf(MINI, theta0Id(MINI, seed)).step);
  }
});

test("IHN: iteration i retrains from its seed's θ0 with negatives mined by iteration i-1 of the same seed on the training turns", () => {
  const theta0s = [1, 2].map((seed) => modelOf(MINI, theta0Id(MINI, seed)).step);
  assert.equal(theta0s[0], modelOf(MINI, "theta0").step, "seed 1's θ0 is the θ0 of the tables");
  assert.notEqual(theta0s[0], theta0s[1]);
  assert.deepEqual(theta0s.map((s) => [s.name, (s.params as { seed: number }).seed]), [["pretrain-dpr.mini.theta0", THETA0_SEED], ["pretrain-dpr.mini.theta0.s2", THETA0_SEED + 1]]);
  for (const seed of [1, 2]) {
    const [it1, it2, it3] = [1, 2, 3].map((i) => modelOf(MINI, ihn("topiocqa", i, seed)).step) as [AnyStep, AnyStep, AnyStep];
    for (const s of [it1, it2, it3]) {
      assert.equal(producer(s, "init"), theta0s[seed - 1]);
      assert.equal((s.params as { seed: number }).seed, seed);
    }
    const minedBy = (train: AnyStep): AnyStep => {
      const examples = producer(train, "examples");
      assert.equal(examples.def.id, "assemble-dpr-examples");
      const mine = producer(examples, "negatives");
      assert.equal(mine.def.id, "mine-negatives");
      assert.equal((mine.params as { excludeGold?: boolean }).excludeGold, true);
      const search = producer(mine, "run");
      assert.equal(search.def.id, "search-dense");
      const queries = producer(producer(search, "queries"), "tokens");
      assert.deepEqual({ form: (queries.params as { form: string }).form, split: (queries.params as { split: string }).split }, { form: "history", split: "train" });
      return producer(producer(search, "queries"), "model");
    };
    assert.equal(minedBy(it3), it2);
    assert.equal(minedBy(it2), it1);
    assert.doesNotMatch(producer(it1, "examples").def.id, /negatives/);
    // Paper schedule: the batch is halved with hard negatives.
    const p = (s: AnyStep) => s.params as { batch_size: number; n_hard_negatives: number };
    assert.equal(p(it2).batch_size, p(it1).batch_size / 2);
    assert.equal(p(it2).n_hard_negatives, 1);
    assert.equal(p(it1).n_hard_negatives, 0);
  }
  // Seeds share what does not depend on them (IBN's examples), and nothing that does.
  const s1 = modelOf(MINI, ihn("topiocqa", 1, 1)).step;
  const s2 = modelOf(MINI, ihn("topiocqa", 1, 2)).step;
  assert.notEqual(s1, s2);
  assert.equal(producer(s1, "examples"), producer(s2, "examples"));
  assert.notEqual(producer(modelOf(MINI, ihn("topiocqa", 2, 1)).step, "examples"), producer(modelOf(MINI, ihn("topiocqa", 2, 2)).step, "examples"));
  // The same record is the same step, however it was built.
  assert.equal(modelOf(MINI, ihn("topiocqa", 3, 1)), modelOf({ profile: "paper", data: "mini" }, { ...ihn("topiocqa", 3, 1) }));
});

test("a change upstream (iteration 1) changes the identity of every later iteration", () => {
  const identityOf = (ctx: DenseContext, i: number): string => {
    const g = graphOf([modelOf(ctx, ihn("qrecc", i, 1)).step]);
    return JSON.stringify(g.order.map((s) => [s.name, s.params]));
  };
  const smoke: DenseContext = { data: "mini", profile: "smoke" };
  // Same step names except the profile tag; iteration 1 differs in epochs, so iteration 2's whole upstream differs.
  const strip = (s: string) => s.replaceAll("mini-smoke", "mini");
  assert.notEqual(strip(identityOf(MINI, 2)), strip(identityOf(smoke, 2)));
  const epochs = (ctx: DenseContext, i: number) => (modelOf(ctx, ihn("qrecc", i, 1)).step.params as { epochs: number }).epochs;
  assert.notEqual(epochs(MINI, 1), epochs(smoke, 1));
});

test("on real data θ0 is the locked DPR-NQ checkpoint exported with zero epochs, and tokens use BERT's locked vocabulary", () => {
  const targets = buildTargets();
  const g = graphOf(targets.get("report")!.steps({ data: "real" }));
  const names = g.order.map((s) => s.name);
  assert.ok(!names.some((n) => n.includes("mini")), names.filter((n) => n.includes("mini")).join(", "));
  assert.ok(!g.order.some((s) => s.def.id === "pretrain-dpr" || s.def.id === "train-wordpiece-vocab"));
  const REAL: DenseContext = { data: "real", profile: "paper" };
  const theta0 = modelOf(REAL, "theta0").step;
  assert.equal(theta0.def.id, "import-dpr-checkpoint");
  const checkpoint = producer(theta0, "checkpoint");
  assert.equal(checkpoint.def.id, "assemble-hf-dpr-checkpoint");
  assert.deepEqual(
    ["questionWeights", "questionConfig", "contextWeights", "contextConfig"].map((i) => producer(checkpoint, i).name),
    ["fetch-dataset.dpr-nq-question-encoder", "fetch-dataset.dpr-nq-question-encoder-config", "fetch-dataset.dpr-nq-context-encoder", "fetch-dataset.dpr-nq-context-encoder-config"],
  );
  for (const s of [modelOf(REAL, ihn("qrecc", 1, 42)).step, modelOf(REAL, ihn("qrecc", 2, 42)).step]) {
    assert.equal(producer(s, "init"), theta0);
    // The paper's schedule and a GPU requirement on real data.
    assert.equal((s.params as { lr: number }).lr, 3e-5);
    assert.equal(s.def.runtime.type === "container" && s.def.runtime.gpu?.required, true);
  }
  const vocab = producer(producer(modelOf(REAL, ihn("qrecc", 1, 42)).step, "passages"), "vocab");
  assert.equal(vocab.def.id, "import-bert-vocab");
  assert.equal(producer(vocab, "files").name, "fetch-dataset.bert-base-uncased-vocab");
  // θ0 records the vocabulary the tokens use; exporting it needs no GPU (it computes on CPU wherever it runs).
  assert.equal(producer(theta0, "vocab"), vocab);
  const rt = theta0.def.runtime;
  assert.ok(rt.type === "container" && rt.gpu === undefined);
});
