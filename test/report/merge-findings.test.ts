/**
 * merge-findings: several stages' findings as one (claims in input order, one data source, claim
 * ids unique across inputs), and `report-full`, whose one findings section merges the dense,
 * Table 5 and table-dcsr claims, with Table 5 and table-dcsr among its tables.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mergeFindings, mergeFindingsDef } from "../../steps/report/merge-findings.ts";
import type { Findings } from "../../steps/report/findings.ts";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { tempDir } from "../tmp.ts";
import { graphOf, producer } from "../definitions/graph-helpers.ts";
import { sameDef } from "../../pipeline/engine/def-identity.ts";

const claim = (id: string, value: number): Findings["claims"][number] => ({ id, title: `claim ${id}`, paper: "p", measure: "m", value, sd: null, seeds: 1, unit: "points", threshold: "> 0", verdict: value > 0 ? "holds" : "does-not-hold", evidence: [] });
const findings = (data: "mini" | "real", ...claims: Findings["claims"]): Findings => ({ schema: "cspipe.findings/1", data, claims });

test("mergeFindings: claims in input order; mixed data sources and repeated ids are errors naming the files", () => {
  const merged = mergeFindings([
    { findings: findings("mini", claim("a", 1), claim("b", -1)), file: "dense.json" },
    { findings: findings("mini"), file: "empty.json" },
    { findings: findings("mini", claim("c", 2)), file: "qa.json" },
  ]);
  assert.deepEqual(merged.claims.map((c) => c.id), ["a", "b", "c"]);
  assert.equal(merged.data, "mini");
  assert.throws(() => mergeFindings([{ findings: findings("mini", claim("a", 1)), file: "dense.json" }, { findings: findings("real", claim("c", 1)), file: "qa.json" }]), /qa\.json: field 'data': findings on 'real' data beside findings on 'mini' data \(dense\.json\)/);
  assert.throws(() => mergeFindings([{ findings: findings("mini", claim("a", 1)), file: "dense.json" }, { findings: findings("mini", claim("a", 2)), file: "qa.json" }]), /qa\.json: field 'claims\.a': claim id 'a' is also in dense\.json/);
  assert.throws(() => mergeFindings([]), /no findings to merge/);
});

test("merge-findings step: one def per input count, writes the merged findings.json", async () => {
  assert.ok(sameDef(mergeFindingsDef(2), mergeFindingsDef(2)));
  assert.ok(!sameDef(mergeFindingsDef(2), mergeFindingsDef(3)));
  assert.deepEqual(Object.keys(mergeFindingsDef(3).inputs), ["f0", "f1", "f2"]);
  assert.throws(() => mergeFindingsDef(0), /n >= 1/);
  const dir = tempDir("cspipe-merge-findings-");
  const paths = ["f0.json", "f1.json"].map((n) => join(dir, n));
  writeFileSync(paths[0]!, JSON.stringify(findings("mini", claim("x", 1))));
  writeFileSync(paths[1]!, JSON.stringify(findings("mini", claim("y", -1))));
  mkdirSync(join(dir, "out"));
  const out = join(dir, "out", "findings.json");
  const runtime = mergeFindingsDef(2).runtime;
  if (runtime.type !== "in-process") throw new Error("merge-findings runs in process");
  await runtime.run({
    params: {},
    inputs: { f0: paths[0]!, f1: paths[1]! },
    outputs: { findings: out },
    log: () => {}, progress: () => {}, signal: new AbortController().signal, settings: {}, workDir: dir, scratchDir: dir, datasets: {}, inputKeys: {},
  });
  assert.deepEqual((JSON.parse(readFileSync(out, "utf8")) as Findings).claims.map((c) => c.id), ["x", "y"]);
});

test("report-full: the default report's sections plus table5 and table-dcsr, one findings section over all three stages' claims", () => {
  const target = buildTargets().get("report-full");
  assert.ok(target);
  const [write] = target.steps({ data: "mini" }) as AnyStep[];
  assert.ok(write);
  graphOf([write]);
  const inputs = Object.keys(write.inputs);
  for (const id of ["table2", "table5", "table-dcsr", "findings", "provenance"]) assert.ok(inputs.includes(id), id);
  const merge = producer(write, "findings");
  assert.equal(merge.def.id, "merge-findings");
  assert.deepEqual(["f0", "f1", "f2"].map((f) => producer(merge, f).name), ["check-findings", "check-findings-qa", "check-findings-table-dcsr"]);
});
