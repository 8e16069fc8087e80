/**
 * gc as a researcher meets it, through ./cspipe: small commands (`bm25 index`) do not evict a
 * target built minutes earlier (each target keeps its own --keep-runs history), `--keep-runs 0`
 * is accepted, `--grace` shows its default as a duration, and a mistyped --store is an error.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";
import { FIXTURE_TARGETS, cspipe } from "./cspipe.ts";

const fixture = { CSPIPE_DEFINITIONS: FIXTURE_TARGETS };

test("six bm25 index calls after a target run: gc removes only the oldest index, the target's entries stay", () => {
  const dir = tempDir("cspipe-gc-");
  const store = join(dir, "store");
  assert.equal(cspipe(["run", "chain", "--store", store], { env: fixture }).status, 0);
  const indexKeys: string[] = [];
  for (let i = 0; i < 6; i++) {
    const collection = join(dir, `c${i}.jsonl`);
    writeFileSync(collection, `{"id": "p${i}", "contents": "passage number ${i}"}\n`);
    const r = cspipe(["bm25", "index", "--collection", collection, "--index", join(dir, `idx${i}`), "--store", store]);
    assert.equal(r.status, 0, r.stderr);
    indexKeys.push(/\(step key ([0-9a-f]{12})\)/.exec(r.stdout)![1]!);
  }
  const gc = cspipe(["gc", "--store", store], { env: fixture });
  assert.equal(gc.status, 0, gc.stderr);
  const lines = gc.stdout.trimEnd().split("\n");
  assert.equal(lines[0], `removed ${indexKeys[0]} index-collection-files`);
  assert.match(lines[1]!, /^freed [\d.]+ (B|KiB) \(1 entry, 0 staging dirs\); kept 10 keys$/);
  assert.equal(lines[2], "  kept for (a key may have several reasons): 0 pinned, 10 in the last 5 runs of each target, 0 in running runs, 0 in interrupted runs, 0 leased");
  // the digests bm25 remembers for unchanged files live in scratch, which gc keeps unless asked
  assert.match(lines[3]!, /^scratch: [\d.]+ (B|KiB) in 1 dir kept \(partial downloads resume from there\); gc --scratch removes them$/);
  assert.equal(lines.length, 4);
  const again = cspipe(["run", "chain", "--store", store], { env: fixture });
  assert.match(again.stdout, /^ok: 0 executed, 5 cached, 0 failed/m, "the target's entries survived");
  // The target's 5 keys are now in two of its run records: still 10 distinct keys, not 15.
  assert.match(cspipe(["gc", "--dry-run", "--store", store], { env: fixture }).stdout, /^ {2}kept for \(a key may have several reasons\): 0 pinned, 10 in the last 5 runs of each target,/m);

  const none = cspipe(["gc", "--keep-runs", "0", "--dry-run", "--store", store], { env: fixture });
  assert.equal(none.status, 0, none.stderr);
  assert.match(none.stdout, /^would free [\d.]+ (B|KiB) \(10 entries, 0 staging dirs\); kept 0 keys$/m);
});

test("gc --help shows --grace's default as a duration; a store that does not exist is an error naming it", () => {
  const help = cspipe(["gc", "--help"]);
  assert.match(help.stdout, /--grace <duration> +how long an interrupted run's finished entries are kept\s+\(e\.g\. 0, 12h, 7d\) \(default: 7d\)/);
  const missing = join(tempDir("cspipe-gc-"), "stroe");
  for (const command of [["gc"], ["ls"], ["show", "x"], ["doctor"]]) {
    const r = cspipe([...command, "--store", missing]);
    assert.deepEqual([r.status, r.stdout, r.stderr], [2, "", `error: no store at ${missing}: nothing has run there. Fix: check --store (or $CSPIPE_STORE), or run a target first\n`], command.join(" "));
  }
});

test("doctor counts in words a person reads: '1 problem; ... fixes it', 'repaired 1 problem'", () => {
  const store = join(tempDir("cspipe-gc-"), "store");
  assert.equal(cspipe(["run", "chain", "--store", store], { env: fixture }).status, 0);
  // staging left by a process that is gone (pid 99999 never runs here long enough to matter)
  mkdirSync(join(store, "staging", "abc.99999.zz"), { recursive: true });
  const found = cspipe(["doctor", "--store", store]);
  assert.equal(found.status, 1);
  assert.equal(found.stdout.trimEnd().split("\n").at(-1), "1 problem; 'doctor --repair' fixes it");
  const repaired = cspipe(["doctor", "--repair", "--store", store]);
  assert.equal(repaired.stdout.trimEnd().split("\n").at(-1), "repaired 1 problem");
});
