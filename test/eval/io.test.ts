import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { readTrecRun, writeTrecRun, parseTrecRunLine } from "../../steps/eval/trec-run.ts";
import { readQrels, writeTrecQrels, qrelsFromJson, qrelsToJson, NO_GOLD_DOCID } from "../../steps/eval/qrels.ts";
import { readRun, runFromJson, runToJson } from "../../steps/eval/json-run.ts";
import { evaluateRun } from "../../steps/eval/evaluate.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import type { Qrels, Run } from "../../steps/eval/types.ts";
import { tempDir } from "../tmp.ts";

const dir = tempDir("cspipe-eval-io-");
const file = (name: string, text?: string): string => {
  const p = join(dir, name);
  if (text !== undefined) writeFileSync(p, text);
  return p;
};
const isInputErrorAt = (line: number, pattern: RegExp) => (e: unknown): boolean =>
  e instanceof InputError && e.line === line && pattern.test(e.message);

test("TREC run: write orders by (-score, docid asc) with ranks 1..n; read gives it back", async () => {
  const run: Run = new Map([
    ["q2", [{ docid: "d9", score: 0.25 }]],
    ["q1", [{ docid: "b", score: 2 }, { docid: "a", score: 2 }, { docid: "c", score: 12.5 }, { docid: "e", score: -1e-7 }]],
  ]);
  const path = file("run.trec");
  await writeTrecRun(path, run, "bm25");
  assert.equal(readFileSync(path, "utf8"), ["q1 Q0 c 1 12.5 bm25", "q1 Q0 a 2 2 bm25", "q1 Q0 b 3 2 bm25", "q1 Q0 e 4 -1e-7 bm25", "q2 Q0 d9 1 0.25 bm25", ""].join("\n"));
  const back = await readTrecRun(path);
  assert.deepEqual([...back.keys()], ["q1", "q2"]);
  assert.deepEqual(back.get("q1"), [
    { docid: "c", score: 12.5, rank: 1 },
    { docid: "a", score: 2, rank: 2 },
    { docid: "b", score: 2, rank: 3 },
    { docid: "e", score: -1e-7, rank: 4 },
  ]);
  await writeTrecRun(file("run-top1.trec"), run, "bm25", { depth: 1 });
  assert.equal(readFileSync(file("run-top1.trec"), "utf8"), "q1 Q0 c 1 12.5 bm25\nq2 Q0 d9 1 0.25 bm25\n");
});

test("TREC run: malformed lines and duplicates name the file and line", async () => {
  const bad = file("bad.trec", "q1 Q0 a 1 3.0 t\n\nq1 Q0 b 2 t\n");
  await assert.rejects(readTrecRun(bad), isInputErrorAt(3, /expected 6 fields/));
  await assert.rejects(readTrecRun(file("bad2.trec", "q1 Q0 a 1 high t\n")), (e: unknown) => isInputErrorAt(1, /score 'high'/)(e) && (e as InputError).field === "score" && (e as Error).message.startsWith(bad.replace("bad.trec", "bad2.trec") + ":1:"));
  await assert.rejects(readTrecRun(file("bad3.trec", "q1 Q0 a 1.5 3 t\n")), isInputErrorAt(1, /rank '1.5'/));
  await assert.rejects(readTrecRun(file("dup.trec", "q1 Q0 a 1 3 t\nq2 Q0 a 1 3 t\nq1 Q0 a 2 1 t\n")), isInputErrorAt(3, /duplicate hit: query 'q1' lists document 'a' again \(first at line 1\)/));
  assert.equal(parseTrecRunLine("   ", 7), null);
});

test("TREC run writer refuses whitespace in ids and leaves no partial file", async () => {
  const path = file("never.trec");
  const run: Run = new Map([["q1", [{ docid: "ok", score: 1 }]], ["q2", [{ docid: "has space", score: 1 }]]]);
  await assert.rejects(writeTrecRun(path, run, "t"), /docid 'has space' \(query 'q2'\)/);
  assert.equal(existsSync(path), false);
});

test("qrels: TREC round trip keeps no-gold turns; JSON {'': 1} means no gold", async () => {
  const qrels: Qrels = qrelsFromJson({ "1_1": { "u_p1": 1, "u_p2": 1 }, "1_2": { "": 1 }, "1_10": { "v_p0": 0 } });
  assert.deepEqual([...qrels.get("1_2")!], []);
  const path = file("qrels.trec");
  await writeTrecQrels(path, qrels);
  assert.equal(readFileSync(path, "utf8"), `1_1 0 u_p1 1\n1_1 0 u_p2 1\n1_10 0 v_p0 0\n1_2 0 ${NO_GOLD_DOCID} 0\n`);
  const back = await readQrels(path);
  assert.deepEqual(back, qrels);
  assert.deepEqual(qrelsToJson(back), { "1_1": { u_p1: 1, u_p2: 1 }, "1_10": { v_p0: 0 }, "1_2": { "": 1 } });
  const jsonPath = file("qrels.json", JSON.stringify({ "1_2": { "": 1 }, "1_1": { u_p1: 1 } }));
  const fromJson = await readQrels(jsonPath);
  assert.deepEqual([...fromJson.keys()], ["1_2", "1_1"]);
  assert.equal(fromJson.get("1_2")!.size, 0);
});

test("qrels: malformed input is located", async () => {
  await assert.rejects(readQrels(file("q.bad", "1_1 0 a 1\n1_1 0 a\n")), isInputErrorAt(2, /expected 4 fields/));
  await assert.rejects(readQrels(file("q.rel", "1_1 0 a yes\n")), isInputErrorAt(1, /relevance 'yes'/));
  await assert.rejects(readQrels(file("q.dup", "1_1 0 a 1\n1_1 0 a 1\n")), isInputErrorAt(2, /duplicate judgement.*first at line 1/));
  assert.throws(() => qrelsFromJson({ "1_1": { a: "1" } }, "x.json"), (e: unknown) => e instanceof InputError && e.field === "1_1.a" && e.file === "x.json");
  assert.throws(() => qrelsFromJson([1, 2]), /must be an object/);
  await assert.rejects(readQrels(file("broken.json", '{\n "1_1": {"a": 1}\n "1_2": {"": 1}\n}')), (e: unknown) => e instanceof InputError && e.line === 3 && /malformed JSON at column 2: expected ',' or '\}', found '"'/.test(e.message));
});

test("JSON runs: read, order by score, auto-detected, and evaluate like the TREC form", async () => {
  const data = { q1: { a: 1, b: 3, c: 3 }, q2: { z: 0.5 } };
  const run = runFromJson(data);
  assert.deepEqual(run.get("q1")!.map((h) => h.docid), ["b", "c", "a"]);
  assert.deepEqual(runToJson(run), { q1: { b: 3, c: 3, a: 1 }, q2: { z: 0.5 } });
  const viaFile = await readRun(file("run.json", "  \n" + JSON.stringify(data)));
  assert.deepEqual(viaFile, run);
  await writeTrecRun(file("run2.trec"), run, "x");
  const viaTrec = await readRun(file("run2.trec"));
  const qrels: Qrels = new Map([["q1", new Map([["b", 1]])], ["q2", new Map([["z", 1]])]]);
  const opts = { metrics: ["mrr", "recall@1"], noGold: "normalized", missing: "zero" } as const;
  // trec_eval order on the tie b=c=3 is c, b (docno descending): MRR(q1) = 1/2.
  assert.deepEqual(evaluateRun(viaFile, qrels, opts).aggregate.metrics, { mrr: 0.75, "recall@1": 0.5 });
  assert.deepEqual(evaluateRun(viaTrec, qrels, opts).aggregate.metrics, { mrr: 0.75, "recall@1": 0.5 });
  assert.throws(() => runFromJson({ q1: { a: null } }), /not a finite number/);
  assert.throws(() => runFromJson({ q1: { "": 1 } }), /empty pid/);
});
