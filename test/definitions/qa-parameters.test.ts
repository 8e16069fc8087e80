/**
 * `--set qa.*` on the QA targets (nothing runs): the QA setup's fields are listed and settable
 * beside the dense setup's; a QA override changes exactly the steps that read it and what they
 * feed (a T5 width re-keys FiD's pre-trainings and FiD's fine-tunings, never the DPR reader or a
 * retriever); a dense override still reaches the retrievers; bad values and broken cross-field
 * rules are errors naming the argument; on real data the mini pre-trainings' fields cannot be set.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import type { Graph } from "../../pipeline/engine/graph.ts";
import { describeFailure } from "../../pipeline/engine/failures.ts";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import { qaContext, qaSetupOf } from "../../pipeline/definitions/qa/parameters.ts";
import { project } from "../engine/helpers.ts";

const targets = buildTargets();
const p = project(targets);
const real = project(targets, { env: { CSPIPE_DATA: "real" } });

function graphOf(target: string, sets: string[] = []): Graph {
  const g = p.graph([target], sets);
  assert.ok(g.ok, g.ok ? "" : g.failures.map(describeFailure).join("\n"));
  return g.graph;
}

const paramsOf = (g: Graph) => new Map(g.order.map((s) => [s.name, JSON.stringify(g.params.get(s) ?? null)]));
/** Steps whose own params differ between two graphs of the same step names. */
const ownChanges = (a: Graph, b: Graph): string[] => {
  const pa = paramsOf(a), pb = paramsOf(b);
  return [...pa.keys()].filter((n) => pa.get(n) !== pb.get(n)).sort();
};

test("params: the QA setup's fields under qa., beside the dense setup's, with the code's values", () => {
  const t = targets.get("table5")!;
  const listed = new Map(t.parameters!.describe({ data: "mini" }).map((i) => [i.path, i]));
  assert.equal(listed.get("qa.fid.pretrain.t5.d_model")?.value, 64);
  assert.equal(listed.get("qa.reader.maxLength.qrecc")?.value, 160);
  assert.equal(listed.get("qa.fid.answerLength.nq")?.value, 12);
  assert.deepEqual(listed.get("qa.seeds")?.value, [1, 2, 3]);
  assert.equal(listed.get("schedule.qrecc.lr")?.value, 4e-4, "the dense setup's fields too");
  for (const name of ["table5-ceilings", "table5-smoke", "qa-pretraining"]) assert.ok(targets.get(name)!.parameters, name);
  assert.equal(targets.get("table5-smoke")!.parameters!.describe({ data: "mini" }).find((i) => i.path === "qa.fid.pretrain.t5.d_model")?.value, 32);
  // The context splits the overrides: the dense ones stay where the dense builders read them.
  const ctx = qaContext({ data: "mini", overrides: { "qa.fid.epochs": 4, "schedule.qrecc.lr": 1e-4 } }, "paper");
  assert.deepEqual(ctx, { data: "mini", profile: "paper", overrides: { "schedule.qrecc.lr": 1e-4 }, qaOverrides: { "fid.epochs": 4 } });
  assert.equal(qaSetupOf(ctx).fid.epochs, 4);
  assert.equal(qaSetupOf(qaContext({ data: "mini" }, "paper")).fid.epochs, 16);
});

test("qa.fid.pretrain.t5.d_model is read by T5's span pre-training alone (FiD's pre-training and fine-tunings follow from its model): never the DPR reader, a retriever or the reader data", () => {
  const plain = graphOf("table5");
  const wide = graphOf("table5", ["qa.fid.pretrain.t5.d_model=128"]);
  assert.deepEqual([...wide.byName.keys()].sort(), [...plain.byName.keys()].sort(), "the same steps by name");
  assert.deepEqual(ownChanges(plain, wide), ["pretrain-t5-span.mini-nq"], "the T5 shape is read by the span pre-training alone; the rest follows from its model");
  const span = wide.order.find((s) => s.name === "pretrain-t5-span.mini-nq")!;
  assert.equal((wide.params.get(span) as { init: { t5_config: { d_model: number } } }).init.t5_config.d_model, 128);
});

test("qa.reader.epochs re-keys the DPR reader's fine-tunings; a dense --set still reaches the retrievers and their readers", () => {
  const plain = graphOf("table5");
  const epochs = ownChanges(plain, graphOf("table5", ["qa.reader.epochs=3"]));
  assert.equal(epochs.length, 18, "6 rows x 3 seeds");
  assert.ok(epochs.every((n) => n.startsWith("train-dpr-reader.")), epochs.join(", "));
  const lr = ownChanges(plain, graphOf("table5", ["schedule.qrecc.lr=1e-4"]));
  assert.ok(lr.length > 0 && lr.every((n) => n.startsWith("train-dpr.mini-qrecc.")), lr.join(", "));
  const pre = ownChanges(graphOf("qa-pretraining"), graphOf("qa-pretraining", ["qa.reader.pretrain.epochs=5"]));
  assert.deepEqual(pre, ["pretrain-dpr-reader.mini-nq"]);
});

test("bad qa values, broken rules and real data's pre-training fields are errors naming the argument and the fix", () => {
  const failures = (target: string, sets: string[], data: "mini" | "real" = "mini") => {
    const g = (data === "mini" ? p : real).graph([target], sets);
    assert.ok(!g.ok);
    return g.failures.map(describeFailure);
  };
  assert.deepEqual(failures("table5", ["qa.fid.nContext=30"]), [
    "--set 'qa.fid.nContext=30': FiD reads passages from the top N of the reader data (qa.fid.nContext=30, qa.topN=20). Fix: choose values that satisfy the rule. [target table5]",
  ]);
  assert.deepEqual(failures("table5", ["qa.seeds=1,4"]), [
    "--set 'qa.seeds=1,4': the readers of seed s read the passages of DPR trained with s: seed 4 not among the dense setup's seeds (qa.seeds=1,4, seeds=1,2,3). Fix: choose values that satisfy the rule. [target table5]",
  ]);
  assert.match(failures("table5", ["qa.fid.pretrain.t5.dmodel=128"])[0]!, /unknown parameter 'qa\.fid\.pretrain\.t5\.dmodel' in the dense and QA setups \(mini, paper profile\); nearest: qa\.fid\.pretrain\.t5\.d_model/);
  assert.match(failures("table5", ["qa.reader.lr=0"])[0]!, /qa\.reader\.lr is out of range: expects a number in \(0, 1\]/);
  assert.match(failures("table5", ["qa.fid.pretrain.t5.d_model=128"], "real")[0]!, /'qa\.fid\.pretrain\.t5\.d_model' cannot be set here: it applies to the mini benchmark only/);
  // Together with a dense seed change, the rule holds.
  assert.ok(p.graph(["table5"], ["qa.seeds=1,4", "seeds=1,2,3,4"]).ok);
});

test("the T5 shape reaches the span pre-training's program config (steps/qa/fid: init.t5_config)", () => {
  const g = graphOf("qa-pretraining", ["qa.fid.pretrain.t5.num_layers=3", "qa.fid.pretrain.span.epochs=2"]);
  const span = g.order.find((s: AnyStep) => s.name === "pretrain-t5-span.mini-nq")!;
  const params = g.params.get(span) as { epochs: number; init: { t5_config: { num_layers: number } } };
  assert.deepEqual([params.epochs, params.init.t5_config.num_layers], [2, 3]);
});
