/**
 * Inputs you can trust, through ./cspipe: every command's input files go through one reader
 * (strict UTF-8, JSON errors with line and column), empty inputs are refused instead of scoring
 * zeros, and errors about files placed with --data-dir name the user's file, not the store's copy.
 * Fixtures are hand-written in the formats users have (Anserini JSONL, TREC, SCAI-QReCC-21).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";
import { storedZip } from "../data/fetch/zip-fixture.ts";
import { cspipe } from "./cspipe.ts";

const UTF8_FIX = "Fix: the file must be UTF-8: convert it (e.g. iconv -f latin1 -t utf-8), or use the original release file (this one may be truncated or binary)";

/** Files in a fresh directory: name -> text, or bytes for what is not UTF-8. */
function files(content: Record<string, string | Buffer>): string {
  const dir = tempDir("cspipe-inputs-");
  for (const [name, body] of Object.entries(content)) writeFileSync(join(dir, name), body);
  return dir;
}

const latin1 = (s: string) => Buffer.from(s, "latin1");
/** The step failure line a file command prints (its log path holds a key). */
const failedLine = (stderr: string) => stderr.split("\n").find((l) => l.startsWith("FAILED    ")) ?? "";

test("bytes that are not UTF-8 are refused by bm25 index, bm25 search, evaluate and diagnose, naming file, line and byte", () => {
  const dir = files({
    "latin1.jsonl": latin1('{"id": "p1", "contents": "green tea"}\n{"id": "p2", "contents": "caf\xe9 latte"}\n'),
    "good.jsonl": '{"id": "p1", "contents": "green tea"}\n{"id": "p2", "contents": "black coffee"}\n',
    "topics.tsv": latin1("q1\tgreen tea\nq2\tcaf\xe9\n"),
    "run.trec": latin1("q1 Q0 p\xe91 1 2.5 t\n"),
    "qrels.txt": latin1("q1 0 p1 1\nq\xe92 0 p2 1\n"),
    "conversations.jsonl": latin1('{"conversation_id": "c1", "turn": 1, "question": "caf\xe9?", "gold_passage_ids": ["p2"]}\n'),
  });
  const store = join(dir, "store");
  const at = (r: { status: number | null; stderr: string }) => [r.status, failedLine(r.stderr).replace(/ \(log: .*\)$/, "")];
  assert.deepEqual(at(cspipe(["bm25", "index", "--collection", join(dir, "latin1.jsonl"), "--index", join(dir, "i1"), "--store", store])), [
    2,
    `FAILED    index-collection-files: ${dir}/latin1.jsonl:2: not valid UTF-8 at byte offset 67 (bytes e9 20 6c 61) ${UTF8_FIX}`,
  ]);
  assert.equal(cspipe(["bm25", "index", "--collection", join(dir, "good.jsonl"), "--index", join(dir, "good"), "--store", store]).status, 0);
  assert.deepEqual(at(cspipe(["bm25", "search", "--index", join(dir, "good"), "--topics", join(dir, "topics.tsv"), "--output", join(dir, "o.trec"), "--store", store])), [
    2,
    `FAILED    read-topics-file: ${dir}/topics.tsv:2: not valid UTF-8 at byte offset 19 (bytes e9) ${UTF8_FIX}`,
  ]);
  const run = cspipe(["evaluate", "--run", join(dir, "run.trec"), "--qrels", join(dir, "qrels.txt")]);
  assert.deepEqual([run.status, run.stderr], [2, `error: ${dir}/qrels.txt:2: not valid UTF-8 at byte offset 11 (bytes e9 32 20 30) ${UTF8_FIX}\n`]);
  writeFileSync(join(dir, "qrels-ok.txt"), "q1 0 p1 1\n");
  const badRun = cspipe(["evaluate", "--run", join(dir, "run.trec"), "--qrels", join(dir, "qrels-ok.txt")]);
  assert.deepEqual([badRun.status, badRun.stderr], [2, `error: ${dir}/run.trec:1: not valid UTF-8 at byte offset 7 (bytes e9 31 20 31) ${UTF8_FIX}\n`]);
  assert.deepEqual(at(cspipe(["diagnose", "--conversations", join(dir, "conversations.jsonl"), "--collection", join(dir, "good.jsonl"), "--out", join(dir, "d"), "--store", store])), [
    2,
    `FAILED    read-conversations-file: ${dir}/conversations.jsonl:1: not valid UTF-8 at byte offset 53 (bytes e9 3f 22 2c) ${UTF8_FIX}`,
  ]);
});

test("empty inputs are refused (an empty collection, run or conversations file), and an empty search result is announced", () => {
  const dir = files({
    "empty.jsonl": "",
    "empty.trec": "",
    "qrels.txt": "q1 0 p1 1\n",
    "other.trec": "x9 Q0 p1 1 2.5 t\n",
    "good.jsonl": '{"id": "p1", "contents": "green tea"}\n',
    "stop.tsv": "q1\tthe of and\n",
  });
  const store = join(dir, "store");
  const index = cspipe(["bm25", "index", "--collection", join(dir, "empty.jsonl"), "--index", join(dir, "i"), "--store", store]);
  assert.deepEqual([index.status, failedLine(index.stderr).replace(/ \(log: .*\)$/, "")], [
    2,
    `FAILED    index-collection-files: ${dir}/empty.jsonl: the collection holds no passages (1 file read) Fix: give it one passage per line: JSONL {"id", "contents"} or TSV id<TAB>text.`,
  ]);
  const run = cspipe(["evaluate", "--run", join(dir, "empty.trec"), "--qrels", join(dir, "qrels.txt")]);
  assert.deepEqual([run.status, run.stdout, run.stderr], [2, "", `error: ${dir}/empty.trec: the run holds no hits (the file is empty). Fix: pass the run file itself: TREC lines 'qid Q0 docid rank score tag' or JSON {qid: {pid: score}}.\n`]);
  const disjoint = cspipe(["evaluate", "--run", join(dir, "other.trec"), "--qrels", join(dir, "qrels.txt")]);
  assert.deepEqual([disjoint.status, disjoint.stdout, disjoint.stderr], [
    2,
    "",
    `error: ${dir}/other.trec: none of the run's 1 queries is in the qrels (run: x9...; qrels ${dir}/qrels.txt: q1...), so every query would score 0. Fix: pass the qrels of the run's split, with the qids written as the run writes them.\n`,
  ]);
  const diag = cspipe(["diagnose", "--conversations", join(dir, "empty.jsonl"), "--collection", join(dir, "good.jsonl"), "--out", join(dir, "d"), "--store", store]);
  assert.equal(diag.status, 2);
  assert.match(failedLine(diag.stderr), new RegExp(`^FAILED {4}read-conversations-file: ${dir}/empty\\.jsonl: no turns Fix: `));
  assert.equal(cspipe(["bm25", "index", "--collection", join(dir, "good.jsonl"), "--index", join(dir, "good"), "--store", store]).status, 0);
  const stop = cspipe(["bm25", "search", "--index", join(dir, "good"), "--topics", join(dir, "stop.tsv"), "--output", join(dir, "o.trec"), "--store", store]);
  assert.equal(stop.status, 0, stop.stderr);
  assert.match(stop.stderr, /^warning: the run is empty: no topic matched any passage of the index \(topics of stop words only, or the wrong index\?\)$/m);
});

/** The four QReCC files table1-bm25 reads on real data, in the release formats, under their lock-file names. */
function qreccRelease(qrels: string, turns: string): string {
  return files({
    "passages.zip": storedZip([
      {
        name: "collection-paragraph/wayback/part-00.jsonl",
        data: Buffer.from(
          ['{"id": "http://a.com/dune_p0", "contents": "Dune is a 1965 novel by Frank Herbert."}', '{"id": "http://a.com/dune_p1", "contents": "Dune was published in 1965 by Chilton Books."}', ""].join("\n"),
        ),
      },
    ]),
    "scai-qrecc21-test-turns.json": turns,
    "cs-shortcut-qrecc-qrels.txt": qrels,
    "cs-shortcut-qrecc-test-question-types.json": '{\n  "nq": ["1_1", "1_2"],\n  "first": ["1_1"],\n  "no-switch": ["1_2"]\n}\n',
  });
}

const TURNS = `[
  {"Conversation_no": 1, "Turn_no": 1, "Conversation_source": "nq", "Question": "who wrote dune", "Truth_rewrite": "who wrote dune", "Truth_answer": "Frank Herbert", "Truth_passages": ["http://a.com/dune_p0"]},
  {"Conversation_no": 1, "Turn_no": 2, "Conversation_source": "nq", "Question": "when was it published", "Truth_rewrite": "when was dune published", "Truth_answer": "1965", "Truth_passages": ["http://a.com/dune_p1"]}
]
`;

test("--data real with --data-dir: a malformed file is named as the user placed it, with its line (Node 20's JSON errors carry none)", () => {
  const runReal = (dataDir: string) =>
    cspipe(["run", "table1-bm25", "--data", "real", "--data-dir", dataDir, "--offline", "--allow-unpinned", "--store", join(dataDir, "store"), "--export-dir", join(dataDir, "out")]);
  const broken = qreccRelease('{\n  "1_1": {"http://a.com/dune_p0": 1}\n  "1_2": {"http://a.com/dune_p1": 1}\n}\n', TURNS);
  const r = runReal(broken);
  assert.equal(r.status, 1);
  assert.equal(
    failedLine(r.stdout).replace(/ \(log: .*\)$/, ""),
    `FAILED    preprocess-real-qrecc.test: ${broken}/cs-shortcut-qrecc-qrels.txt:3: malformed JSON at column 3: expected ',' or '}', found '"' Fix: check the file is complete (re-download it)`,
  );
  // SCAI turns given as one object instead of an array: not "malformed JSON (JSONL)".
  const object = qreccRelease('{\n  "1_1": {"http://a.com/dune_p0": 1},\n  "1_2": {"http://a.com/dune_p1": 1}\n}\n', '{"Conversation_no": 1,\n "Turn_no": 1, "Question": "who wrote dune"}\n');
  const o = runReal(object);
  assert.equal(o.status, 1);
  assert.equal(
    failedLine(o.stdout).replace(/ \(log: .*\)$/, ""),
    `FAILED    preprocess-real-qrecc.test: ${object}/scai-qrecc21-test-turns.json:1: expected a JSON array of records or JSONL (one JSON object per line), but the file is one JSON object spanning several lines (keys: Conversation_no, Turn_no, Question) Fix: give the records as a JSON array [{...}, {...}] or one object per line; use the dataset's original release file`,
  );
});

test("--data real: a gold passage the release's collection lacks stops the run with a fix the command line reaches (--set data.qrecc.allowMissingGold=true)", () => {
  const qrels = '{\n  "1_1": {"http://a.com/dune_p0": 1},\n  "1_2": {"http://a.com/dune_p9": 1}\n}\n';
  const dataDir = qreccRelease(qrels, TURNS.replace('"Truth_passages": ["http://a.com/dune_p1"]', '"Truth_passages": ["http://a.com/dune_p9"]'));
  const args = ["run", "table1-bm25", "--data", "real", "--data-dir", dataDir, "--offline", "--allow-unpinned", "--store", join(dataDir, "store"), "--export-dir", join(dataDir, "out")];
  const strict = cspipe(args);
  assert.equal(strict.status, 1);
  assert.equal(
    failedLine(strict.stdout).replace(/ \(log: .*\)$/, ""),
    `FAILED    preprocess-real-qrecc.test: ${dataDir}/scai-qrecc21-test-turns.json:3: field 'gold passage': turn 1_2: gold passage 'http://a.com/dune_p9' is not in the collection (1 gold passage id of 1 turn missing in all) Fix: use the collection release that matches these turns; if the release itself lacks them, rerun with --set data.qrecc.allowMissingGold=true (they are then counted in the preprocessing report and score as unreachable)`,
  );
  const lenient = cspipe([...args, "--set", "data.qrecc.allowMissingGold=true"]);
  assert.equal(lenient.status, 0, lenient.stdout + lenient.stderr);
  assert.equal(lenient.stdout.trimEnd().split("\n").at(-1), `table1-bm25: ${dataDir}/out/results/table1-bm25/ (table1-bm25.csv, table1-bm25.json, table1-bm25.md)`);
});
