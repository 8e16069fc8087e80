/**
 * The source scanner's memo (engine/source-memo.ts): a later process answers from it while a
 * file's stat stamp is unchanged, and an edit changes the fingerprint however it is made: the
 * same size with the mtime put back, a file replaced by another, a Python module of a program.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SourceScanner } from "../../pipeline/engine/sources.ts";
import { RACY_MS } from "../../pipeline/engine/source-memo.ts";
import { tempDir } from "../tmp.ts";

/** Files are remembered only once they are older than RACY_MS: wait that long after writing them. */
const settle = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RACY_MS + 30);

function tree() {
  const root = tempDir("cspipe-source-memo-");
  writeFileSync(join(root, "package.json"), "{}\n");
  mkdirSync(join(root, "m"));
  mkdirSync(join(root, "py", "pkg"), { recursive: true });
  writeFileSync(join(root, "m", "a.ts"), 'import { b } from "./b.ts";\nexport const a = b;\n');
  writeFileSync(join(root, "m", "b.ts"), "export const b = 1;\n");
  writeFileSync(join(root, "py", "pkg", "__init__.py"), "");
  writeFileSync(join(root, "py", "pkg", "main.py"), "from pkg import util\n");
  writeFileSync(join(root, "py", "pkg", "util.py"), "X = 1\n");
  settle();
  return { root, memoFile: join(root, ".cspipe", "source-memo.json"), a: join(root, "m", "a.ts"), b: join(root, "m", "b.ts") };
}

/** A new process's scanner: nothing in memory but the memo file. */
const fingerprint = (t: ReturnType<typeof tree>, memo = true) => new SourceScanner(t.root, memo ? { memoFile: t.memoFile } : {}).fingerprint(t.a, ["python:py:pkg.main"]);

test("a later scanner answers from the memo while the stamps are unchanged", () => {
  const t = tree();
  const first = fingerprint(t);
  assert.deepEqual(Object.keys(first.files), ["m/a.ts", "m/b.ts", "py/pkg/__init__.py", "py/pkg/main.py", "py/pkg/util.py"]);
  assert.deepEqual(fingerprint(t, false), first);
  // The memo is what answers: a digest planted under b.ts's current stamp comes back.
  const memo = JSON.parse(readFileSync(t.memoFile, "utf8")) as { files: Record<string, { answers: { module: { digest: string } } }> };
  memo.files[t.b]!.answers.module.digest = "planted";
  writeFileSync(t.memoFile, JSON.stringify(memo));
  assert.equal(fingerprint(t).files["m/b.ts"], "planted");
  // An unreadable memo is no memo.
  writeFileSync(t.memoFile, "{");
  assert.deepEqual(fingerprint(t), first);
});

test("an edit that keeps the size and the mtime, a replaced file or an edited Python module changes the fingerprint", () => {
  const t = tree();
  const first = fingerprint(t);
  const before = statSync(t.b);
  writeFileSync(t.b, "export const b = 2;\n");
  utimesSync(t.b, before.atime, before.mtime);
  assert.equal(statSync(t.b).size, before.size);
  const edited = fingerprint(t);
  assert.notEqual(edited.files["m/b.ts"], first.files["m/b.ts"]);
  assert.deepEqual(edited, fingerprint(t, false));
  settle();
  assert.deepEqual(fingerprint(t), edited, "remembered again once settled");

  // Replaced by a rename: another inode, the new import followed.
  writeFileSync(`${t.a}.new`, 'import { b } from "./b.ts";\nimport { c } from "./c.ts";\nexport const a = b + c;\n');
  writeFileSync(join(t.root, "m", "c.ts"), "export const c = 3;\n");
  renameSync(`${t.a}.new`, t.a);
  const replaced = fingerprint(t);
  assert.deepEqual(Object.keys(replaced.files).filter((f) => f.startsWith("m/")), ["m/a.ts", "m/b.ts", "m/c.ts"]);
  assert.deepEqual(replaced, fingerprint(t, false));

  writeFileSync(join(t.root, "py", "pkg", "util.py"), "X = 2\n");
  const py = fingerprint(t);
  assert.notEqual(py.files["py/pkg/util.py"], replaced.files["py/pkg/util.py"]);
  assert.deepEqual(py, fingerprint(t, false));
});
