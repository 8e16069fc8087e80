/**
 * A command line that forgives: a target named without `run` runs, a mistyped command, target or
 * step gets "did you mean", a missing or wrong file names the option and the fix, `--version`
 * exists, and output piped into a reader that stops early (`| head`) ends quietly with exit 0.
 * Every case through ./cspipe, as a user types it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";
import { FIXTURE_TARGETS, cspipe, cspipePiped } from "./cspipe.ts";

const fixture = { CSPIPE_DEFINITIONS: FIXTURE_TARGETS };

test("a target without 'run' runs it; a mistyped command or target is answered with the nearest names", () => {
  const store = join(tempDir("cspipe-mistakes-"), "store");
  const r = cspipe(["chain", "--store", store], { env: fixture });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^ok: 5 executed, 0 cached, 0 failed in [\d.]+ s$/m);

  const rn = cspipe(["rn"]);
  assert.deepEqual([rn.status, rn.stdout, rn.stderr], [2, "", "error: 'rn' is neither a command nor a target; did you mean 'run'? ('cspipe --help' lists the commands, 'cspipe targets' the targets)\n"]);
  const target = cspipe(["tabel2-bm25"]);
  assert.deepEqual([target.status, target.stderr], [2, "error: 'tabel2-bm25' is neither a command nor a target; did you mean 'table2-bm25'? ('cspipe --help' lists the commands, 'cspipe targets' the targets)\n"]);
  const inRun = cspipe(["run", "tabel2"]);
  assert.deepEqual([inRun.status, inRun.stderr], [2, "error: unknown target 'tabel2'; did you mean 'table2'? ('targets' lists all 30)\n"]);
  const step = cspipe(["plan", "chain", "--store", store, "--force", "slow-x"], { env: fixture });
  assert.deepEqual([step.status, step.stderr], [2, "error: unknown step 'slow-x'; did you mean 'slow-a', 'slow-b' or 'slow-c'? ('plan <target>' lists the 5 steps of a target's graph)\n"]);
  const option = cspipe(["run", "--stor", store]);
  assert.deepEqual([option.status, option.stderr], [2, "error: unknown option '--stor'\n(Did you mean --store?)\n(add --help for usage)\n"]);
});

test("--version prints the package's version", () => {
  const r = cspipe(["--version"]);
  assert.deepEqual([r.status, r.stdout, r.stderr], [0, "cspipe 0.1.0\n", ""]);
});

test("evaluate: a missing file or a directory names the option and the fix, not ENOENT/EISDIR", () => {
  const dir = tempDir("cspipe-mistakes-");
  const missing = cspipe(["evaluate", "--run", "nope.trec", "--qrels", dir], { cwd: dir });
  assert.deepEqual([missing.status, missing.stdout, missing.stderr], [2, "", `error: ${dir}/nope.trec: --run: no such file. Fix: check the path (relative paths start at ${dir})\n`]);
  const isDir = cspipe(["evaluate", "--run", dir, "--qrels", dir], { cwd: dir });
  assert.deepEqual([isDir.status, isDir.stderr], [2, `error: ${dir}: --run: this is a directory; --run takes a file. Fix: name a file inside it.\n`]);
});

test("ls, show and targets piped into a reader that stops at once end quietly with exit 0", () => {
  const store = join(tempDir("cspipe-mistakes-"), "store");
  assert.equal(cspipe(["run", "chain", "--store", store], { env: fixture }).status, 0);
  for (const args of [["targets"], ["ls", "--store", store], ["show", "join-abc", "--store", store]]) {
    // `true` exits without reading: every write of cspipe meets a closed pipe (EPIPE).
    const r = cspipePiped(args, "true", fixture);
    assert.deepEqual([r.status, r.stderr], [0, ""], args.join(" "));
  }
  const head = cspipePiped(["targets"], "head -n 1", fixture);
  assert.deepEqual([head.status, head.stdout, head.stderr], [0, "* chain  0:03?  CPU  three slow steps\n", ""]);
});
