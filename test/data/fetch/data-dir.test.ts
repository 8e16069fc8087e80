/**
 * `--data-dir` files are the user's: copied (or reflinked) into the store, never hard-linked;
 * their content digest is in the fetch step's key even when the lock entry is unpinned, so a
 * replaced file is noticed (and a truncated copy in scratch is not reused); errors name the
 * user's file, not the store's copy.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { use, type RunSettings } from "../../../pipeline/engine/step.ts";
import type { LockEntry } from "../../../pipeline/engine/datasets-lock.ts";
import { fetchStepDef } from "../../../steps/data/fetch/steps.ts";
import { project, registry, run, tempDir } from "../../engine/helpers.ts";
import { bytes, lockEntry, sha256Of } from "./http-fixture.ts";

function fetcher(name: string, e: LockEntry) {
  const store = join(tempDir("cspipe-datadir-store-"), "store");
  const p = project(registry({ fetch: () => [use(fetchStepDef(name), { name: `fetch-dataset.${name}`, params: { entry: name }, inputs: {} })] }), { store, lock: { version: 1, entries: { [name]: e } } });
  return async (settings: RunSettings) => {
    const r = await run(p, ["fetch"], { settings: { offline: true, ...settings } });
    assert.deepEqual(r.outcome.analysis, []);
    const res = "result" in r.outcome ? r.outcome.result : undefined;
    const entry = res?.results.get(`fetch-dataset.${name}`)?.entry;
    const failure = res?.failures[0];
    return { r, entry, failure, files: entry ? join(entry.dir, "outputs", "files") : "", message: failure && "message" in failure ? failure.message : "" };
  };
}

test("a pinned file from --data-dir is copied: the user's file keeps one link, and editing the store's copy leaves it alone", async () => {
  const body = bytes(5_000, 41);
  const dataDir = tempDir("cspipe-datadir-");
  const mine = join(dataDir, "corpus.bin");
  writeFileSync(mine, body);
  const fetch = fetcher("corpus", lockEntry({ urls: ["http://127.0.0.1:9/corpus.bin"], file: "corpus.bin", sha256: sha256Of(body), size: body.length }));
  const r = await fetch({ dataDir });
  assert.equal(r.failure, undefined, r.message);
  const copy = join(r.files, "corpus.bin");
  assert.deepEqual(readFileSync(copy), body);
  assert.equal(statSync(mine).nlink, 1, "not hard-linked");
  assert.notEqual(statSync(copy).ino, statSync(mine).ino);
  appendFileSync(copy, "edit");
  assert.deepEqual(readFileSync(mine), body, "the user's file is untouched");
});

test("unpinned: the --data-dir file's content is in the key, so replacing the file refetches it", async () => {
  const dataDir = tempDir("cspipe-datadir-");
  const mine = join(dataDir, "notes.txt");
  const fetch = fetcher("notes", lockEntry({ urls: ["http://127.0.0.1:9/notes.txt"], file: "notes.txt" }));
  writeFileSync(mine, "first version\n");
  const a = await fetch({ dataDir, allowUnpinned: true });
  assert.equal(a.failure, undefined, a.message);
  assert.equal(readFileSync(join(a.files, "notes.txt"), "utf8"), "first version\n");
  const same = await fetch({ dataDir, allowUnpinned: true });
  assert.deepEqual(same.r.hits, ["fetch-dataset.notes"]);
  writeFileSync(mine, "second version\n");
  const b = await fetch({ dataDir, allowUnpinned: true });
  assert.equal(b.failure, undefined, b.message);
  assert.deepEqual(b.r.executed, ["fetch-dataset.notes"]);
  assert.notEqual(b.entry!.key, a.entry!.key);
  assert.equal(readFileSync(join(b.files, "notes.txt"), "utf8"), "second version\n");
});

test("unpinned: a truncated archive fails naming the user's file; once replaced, the new file is used (not the bad copy in scratch)", async () => {
  const dataDir = tempDir("cspipe-datadir-");
  const mine = join(dataDir, "blocks.txt.gz");
  const text = Buffer.from("block one\nblock two\n".repeat(200));
  const gz = gzipSync(text);
  writeFileSync(mine, gz.subarray(0, Math.floor(gz.length / 2)));
  const fetch = fetcher("blocks", lockEntry({ urls: ["http://127.0.0.1:9/blocks.txt.gz"], file: "blocks.txt.gz", unpack: "gz", provides: ["blocks.txt"] }));
  const bad = await fetch({ dataDir, allowUnpinned: true });
  assert.equal(bad.failure?.reason, "bad-input");
  if (bad.failure?.reason !== "bad-input") return;
  assert.equal(bad.failure.file, mine, bad.message);
  assert.ok(bad.message.includes(mine), bad.message);
  assert.doesNotMatch(bad.message, /scratch/);
  writeFileSync(mine, gz);
  const good = await fetch({ dataDir, allowUnpinned: true });
  assert.equal(good.failure, undefined, good.message);
  assert.deepEqual(readFileSync(join(good.files, "blocks.txt")), text);
});
