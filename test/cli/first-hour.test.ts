/**
 * A new user's first hour (issue 34's "Done when"), the mistakes it met that earlier tests did not
 * cover: every path a command writes to or reads a directory from is checked before any work, so
 * a directory where a file goes, a file where a directory goes and a --data-dir that does not exist
 * are errors naming the option, the path and the fix (exit 2), not a bare EISDIR / EEXIST / ENOTDIR
 * after the computation, nor an option silently ignored. Every case through ./cspipe.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";
import { ROOT } from "../engine/helpers.ts";
import { FIXTURE_TARGETS, cspipe } from "./cspipe.ts";

/** A directory with a file `a-file` and a directory `a-dir`. */
function place(): string {
  const dir = tempDir("cspipe-first-hour-");
  writeFileSync(join(dir, "a-file"), "x\n");
  mkdirSync(join(dir, "a-dir"));
  writeFileSync(join(dir, "run.trec"), "q1 Q0 p1 1 2.5 t\n");
  writeFileSync(join(dir, "qrels.txt"), "q1 0 p1 1\n");
  return dir;
}

const refused = (args: readonly string[], env: Record<string, string> = {}) => {
  const r = cspipe(args, { env });
  return [r.status, r.stdout, r.stderr];
};

test("a command's output paths are checked before any work: a directory for a file, a file for a directory, a file above the path", () => {
  const dir = place();
  const store = join(dir, "store");
  const [file, sub] = [join(dir, "a-file"), join(dir, "a-dir")];
  assert.deepEqual(refused(["bm25", "search", "--index", join(dir, "idx"), "--topics", join(dir, "t.tsv"), "--output", sub, "--store", store]), [
    2,
    "",
    `error: ${sub}: --output: this is a directory; --output takes the file to write. Fix: name a file (a new one, or one to replace)\n`,
  ]);
  assert.deepEqual(refused(["bm25", "search", "--index", sub, "--topics", join(dir, "t.tsv"), "--output", join(file, "run.trec"), "--store", store]), [
    2,
    "",
    `error: ${file}/run.trec: --output: ${file} is a file, so nothing can be created under it. Fix: name a path under a directory\n`,
  ]);
  assert.deepEqual(refused(["bm25", "search", "--index", join(dir, "no-index"), "--topics", join(dir, "t.tsv"), "--output", join(dir, "o.trec"), "--store", store]), [
    2,
    "",
    `error: ${dir}/no-index: --index: no such directory. Fix: check the path (relative paths start at ${process.cwd()})\n`,
  ]);
  const run = ["--run", join(dir, "run.trec"), "--qrels", join(dir, "qrels.txt")];
  const fileForDir = (option: string) => `error: ${file}: ${option}: this is a file; ${option} takes a directory to write into. Fix: name a directory (a new one is created)\n`;
  assert.deepEqual(refused(["evaluate", ...run, "--out", file]), [2, "", fileForDir("--out")]);
  assert.deepEqual(refused(["evaluate", ...run, "--per-query", sub]), [
    2,
    "",
    `error: ${sub}: --per-query: this is a directory; --per-query takes the file to write. Fix: name a file (a new one, or one to replace)\n`,
  ]);
  assert.deepEqual(refused(["evaluate-qa", "--predictions", join(dir, "qrels.txt"), "--references", join(dir, "qrels.txt"), "--out", file]), [2, "", fileForDir("--out")]);
  assert.deepEqual(refused(["diagnose", "--conversations", join(dir, "c.jsonl"), "--collection", join(dir, "p.jsonl"), "--out", file, "--store", store]), [2, "", fileForDir("--out")]);
  assert.deepEqual(refused(["run", "chain", "--export-dir", file, "--store", store], { CSPIPE_DEFINITIONS: FIXTURE_TARGETS }), [2, "", fileForDir("--export-dir")]);
  assert.equal(existsSync(store), false, "nothing ran");
});

test("--data-dir must name an existing directory (run, plan, diagnose and lock alike)", () => {
  const dir = place();
  const store = join(dir, "store");
  const missing = join(dir, "data");
  const noSuch = `error: ${missing}: --data-dir: no such directory. Fix: check the path (relative paths start at ${process.cwd()})\n`;
  assert.deepEqual(refused(["run", "table1-bm25", "--data", "real", "--data-dir", missing, "--store", store]), [2, "", noSuch]);
  assert.deepEqual(refused(["plan", "table1-bm25", "--data", "real", "--data-dir", missing, "--store", store]), [2, "", noSuch]);
  assert.deepEqual(refused(["diagnose", "--dataset", "qrecc", "--data", "real", "--data-dir", missing, "--out", join(dir, "d"), "--store", store]), [2, "", noSuch]);
  const lock = join(dir, "datasets.lock");
  copyFileSync(join(ROOT, "datasets.lock"), lock);
  const file = join(dir, "a-file");
  assert.deepEqual(refused(["lock", "--update", "qrecc-qrels", "--data-dir", file, "--lock", lock]), [
    2,
    "",
    `error: ${file}: --data-dir: this is a file; --data-dir takes a directory. Fix: name the directory that holds it (${dir})\n`,
  ]);
  assert.equal(existsSync(store), false, "nothing ran");
});

test("a mistyped option is named even when the command also misses a required option (evaluate --runs, bm25 index --colection)", () => {
  const typo = (flag: string, near: string) => `error: unknown option '${flag}'\n(Did you mean ${near}?)\n(add --help for usage)\n`;
  assert.deepEqual(refused(["evaluate", "--runs", "r.trec", "--qrels", "q.txt"]), [2, "", typo("--runs", "--run")]);
  assert.deepEqual(refused(["bm25", "index", "--colection", "c.jsonl", "--index", "i"]), [2, "", typo("--colection", "--collection")]);
  assert.deepEqual(refused(["evaluate", "--qrels", "q.txt"]), [2, "", "error: required option '--run <file>' not specified\n(add --help for usage)\n"]);
});

test("bm25 index: a duplicate passage id names the file and line of both passages, across the files of a collection directory", () => {
  const dir = tempDir("cspipe-first-hour-");
  mkdirSync(join(dir, "coll", "sub"), { recursive: true });
  writeFileSync(join(dir, "coll", "a.tsv"), "id\ttext\ttitle\np1\tgreen tea\tTea\np2\tblack coffee\tCoffee\n");
  writeFileSync(join(dir, "coll", "sub", "b.jsonl"), '{"id": "p3", "contents": "jazz"}\n\n{"id": "p2", "contents": "espresso"}\n');
  const r = cspipe(["bm25", "index", "--collection", join(dir, "coll"), "--index", join(dir, "idx"), "--store", join(dir, "store")]);
  const failed = r.stderr.split("\n").find((l) => l.startsWith("FAILED    ")) ?? r.stderr;
  assert.deepEqual(
    [r.status, failed.replace(/ \(log: .*\)$/, "")],
    [2, `FAILED    index-collection-files: ${dir}/coll/sub/b.jsonl:3: field 'id': duplicate passage id 'p2' (first at ${dir}/coll/a.tsv:3) Fix: passage ids must be unique across the collection; remove or rename one`],
  );
});

test("plan on a store that does not exist says that everything is planned cold (a mistyped --store looks the same)", () => {
  const dir = place();
  const missing = join(dir, "no-such-store");
  const r = cspipe(["plan", "table3-bm25", "--store", missing]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, / steps: 0 cached, /);
  assert.equal(r.stderr, `note: no store at ${missing} yet, so every step is planned as not cached (check --store or $CSPIPE_STORE if you meant an existing store)\n`);
  assert.equal(existsSync(missing), false, "plan creates no store");
});
