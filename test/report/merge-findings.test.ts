/**
 * merge-findings: several stages' findings as one (claims in input order, one data source, claim
 * ids unique across inputs), and `report-full`, whose one findings section merges the dense,
 * Table 5 and table-dcsr claims, with Table 5 and table-dcsr among its tables.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mergeFindings, mergeFindingsStep } from "../../steps/report/merge-findings.ts";
import type { Findings } from "../../steps/report/findings.ts";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { tempDir } from "../tmp.ts";
import { wiredInputs } from "../../pipeline/engine/wiring.ts";
import { graphOf, producer } from "../definitions/graph-helpers.ts";

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

test("merge-findings step: one list input, writes the merged findings.json in its order", async () => {
  assert.deepEqual(mergeFindingsStep.inputs, { findings: { list: "json:findings" } });
  const dir = tempDir("cspipe-merge-findings-");
  const paths = ["f0.json", "f1.json"].map((n) => join(dir, n));
  writeFileSync(paths[0]!, JSON.stringify(findings("mini", claim("x", 1))));
  writeFileSync(paths[1]!, JSON.stringify(findings("mini", claim("y", -1))));
  mkdirSync(join(dir, "out"));
  const out = join(dir, "out", "findings.json");
  const runtime = mergeFindingsStep.runtime;
  if (runtime.type !== "in-process") throw new Error("merge-findings runs in process");
  await runtime.run({
    params: {},
    inputs: { findings: [paths[1]!, paths[0]!] },
    outputs: { findings: out },
    log: () => {}, progress: () => {}, signal: new AbortController().signal, settings: {}, workDir: dir, scratchDir: dir, datasets: {}, inputKeys: { findings: [] },
  });
  assert.deepEqual((JSON.parse(readFileSync(out, "utf8")) as Findings).claims.map((c) => c.id), ["y", "x"]);
});

test("report-full: the default report's sections plus table5 and table-dcsr, one findings section over all three stages' claims", () => {
  const target = buildTargets().get("report-full");
  assert.ok(target);
  const [write] = target.steps({ data: "mini" }) as AnyStep[];
  assert.ok(write);
  graphOf([write]);
  const inputs = wiredInputs(write).map((w) => w.name);
  for (const id of ["tables[table2]", "tables[table5]", "tables[table-dcsr]", "findings", "provenance"]) assert.ok(inputs.includes(id), id);
  const merge = producer(write, "findings");
  assert.equal(merge.def.id, "merge-findings");
  assert.deepEqual([0, 1, 2].map((i) => producer(merge, `findings[${i}]`).name), ["check-findings", "check-findings-qa", "check-findings-table-dcsr"]);
});
