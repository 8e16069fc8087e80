// Defect 1 of issue 12: in QReCC's original (Apple) files, `Context` holds the earlier turns'
// REWRITES and answers. X_t must be built from the earlier turns' original `Question` and
// `Answer` (as the authors' inputs are); Context is only a cross-check.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { preprocessDataset } from "../../../steps/data/preprocess/registry.ts";
import { tempDir } from "../../tmp.ts";
import { checkQreccContext, parseQreccTurns } from "../../../steps/data/formats/qrecc.ts";
import { loadRecords } from "../../../steps/data/formats/records.ts";

const FILE = join(import.meta.dirname, "fixtures", "qrecc", "qrecc_apple_sample.json");

test("Apple-format history: earlier turns' original questions and answers, in Turn_no order, never the rewrites", () => {
  const turns = parseQreccTurns(loadRecords(FILE), "test");
  assert.deepEqual(turns.map((t) => t.row.qid), ["74_1", "74_2", "74_3", "7135_1", "7135_3", "9000_1", "9000_2"]);
  const t3 = turns[2]!.row;
  assert.equal(t3.rewrite, "When was Tesla Inc. founded?");
  assert.deepEqual(t3.history, [
    { question: "What are the pros and cons of electric cars?", answer: "Some pros are: They're easier on the environment. Electricity is cheaper than gasoline. Some cons are: Most EVs have pretty short ranges." },
    // the original question of turn 2; Context has its rewrite "Tell me more about Tesla the car company."
    { question: "Tell me more about Tesla", answer: "Tesla Inc. is an American automotive and energy company based in Palo Alto, California." },
  ]);
  for (const t of turns) {
    for (const h of t.row.history) assert.ok(!turns.some((u) => u.row.rewrite !== u.row.question && u.row.rewrite === h.question), `${t.row.qid}: a rewrite leaked into the history`);
  }
  // turn 2 of 7135 is not in the file: its history holds turn 1 only (Context would add the missing turn's rewrite)
  assert.deepEqual(turns[4]!.row.history.map((h) => h.question), ["What was Huey Long's change of course as governor?"]);
  // the record order in the file does not matter (74_3 is the first record)
  assert.equal(turns[2]!.at.line, 2);
});

test("Context cross-check: a length or answer that disagrees with the earlier turns is reported per turn", () => {
  const turns = parseQreccTurns(loadRecords(FILE), "test");
  assert.deepEqual(checkQreccContext(turns), [
    { qid: "7135_3", kind: "context-length-differs", detail: "Context has 2 question/answer pairs, the file has 1 earlier turn(s)" },
    { qid: "9000_2", kind: "context-answer-differs", detail: "Context answer 1 differs from turn 1's Answer" },
  ]);
});

test("preprocessing counts the Context disagreements as warnings in its report", async () => {
  const dir = tempDir("cspipe-qrecc-history-");
  const coll = join(dir, "collection-paragraph", "c.jsonl");
  mkdirSync(join(dir, "collection-paragraph"), { recursive: true });
  writeFileSync(coll, '{"id": "https://en.wikipedia.org/wiki/Cafu_p0", "contents": "Cafu captained Brazil in 2002."}\n');
  const res = await preprocessDataset("qrecc", { turnsFiles: { test: FILE }, collectionFiles: [coll], outDir: join(dir, "out") });
  assert.deepEqual(
    res.warnings.map((w) => [w.code, w.count, w.examples]),
    [
      ["context-length-differs", 1, ["test 7135_3: Context has 2 question/answer pairs, the file has 1 earlier turn(s)"]],
      ["context-answer-differs", 1, ["test 9000_2: Context answer 1 differs from turn 1's Answer"]],
    ],
  );
});
