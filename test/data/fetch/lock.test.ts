import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkLock, formatLockCheck } from "../../../steps/data/fetch/lock-check.ts";
import { updateLockEntry, withDigest } from "../../../steps/data/fetch/lock-update.ts";
import { fetchEntry } from "../../../steps/data/fetch/fetch-entry.ts";
import { parseLockFile, serializeLockFile, type LockEntry, type LockFile } from "../../../pipeline/engine/datasets-lock.ts";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { startFixture, bytes, noSleep, sha256Of as sha, type Fixture } from "./http-fixture.ts";
import { tempDir } from "../../tmp.ts";

let fx: Fixture;
before(async () => {
  fx = await startFixture();
});
after(async () => {
  await fx.close();
});


function entry(over: Partial<LockEntry> & Pick<LockEntry, "file">): LockEntry {
  return { description: "d", urls: ["https://example.org/x"], sha256: null, size: null, license: "CC0-1.0", unpack: "none", ...over };
}

test("checkLock lists unpinned digests, unknown sizes and duplicate file names, sorted", () => {
  const lock: LockFile = {
    version: 1,
    entries: {
      "zeta-pinned": entry({ file: "z.bin", sha256: "a".repeat(64), size: 10 }),
      "alpha-open": entry({ file: "shared.json" }),
      "beta-half": entry({ file: "shared.json", sha256: "b".repeat(64) }),
      "gamma-http": entry({ file: "g.bin", sha256: "c".repeat(64), size: 1, urls: ["http://example.org/g"] }),
    },
  };
  const r = checkLock(lock);
  assert.equal(r.entryCount, 4);
  assert.deepEqual(r.unpinned, ["alpha-open"]);
  assert.deepEqual(r.unknownSize, ["alpha-open", "beta-half"]);
  assert.deepEqual(r.duplicateFiles, [{ file: "shared.json", entries: ["alpha-open", "beta-half"] }]);
  assert.deepEqual(
    r.problems.map((p) => [p.kind, p.severity, p.entries.join("+")]),
    [
      ["unpinned-sha256", "error", "alpha-open"],
      ["unknown-size", "warning", "alpha-open"],
      ["unknown-size", "warning", "beta-half"],
      ["duplicate-file", "error", "alpha-open+beta-half"],
      ["no-https-url", "warning", "gamma-http"],
    ],
  );
  assert.equal(r.ok, false);
  const text = formatLockCheck(r);
  assert.match(text, /lock --update alpha-open/);
  assert.match(text, /4 entries, 3 pinned, 1 unpinned, 1 duplicate file names: not ok/);
});

test("checkLock on a fully pinned lock is ok", () => {
  const r = checkLock({ version: 1, entries: { a: entry({ file: "a", sha256: "d".repeat(64), size: 3 }) } });
  assert.equal(r.ok, true);
  assert.deepEqual(r.problems, []);
});

test("updateLockEntry downloads (resuming a cut), fills sha256 and size, leaves the input lock untouched", async () => {
  const body = bytes(25_000, 31);
  fx.routes.set("/pin.bin", { body, cut: { bytes: 5_000, times: 1 } });
  const lock: LockFile = {
    version: 1,
    entries: {
      pin: entry({ file: "pin.bin", urls: [`${fx.base}/pin.bin`] }),
      other: entry({ file: "other.bin" }),
    },
  };
  const before = serializeLockFile(lock);
  const updated = await updateLockEntry(lock, "pin", { sleep: noSleep });
  assert.equal(serializeLockFile(lock), before);
  assert.equal(updated.entries["pin"]?.sha256, sha(body));
  assert.equal(updated.entries["pin"]?.size, 25_000);
  assert.deepEqual(updated.entries["other"], lock.entries["other"]);
  // the result round-trips through the canonical serialiser and parser
  assert.deepEqual(parseLockFile(serializeLockFile(updated)), updated);
  // and a fetch of the now pinned entry verifies against it
  const dest = tempDir("cspipe-lock-");
  const pinned = updated.entries["pin"];
  assert.ok(pinned);
  const r = await fetchEntry("pin", pinned, { destDir: dest, sleep: noSleep });
  assert.equal(r.sha256, sha(body));
});

test("updateLockEntry with keepDir keeps the file; unknown names are InputErrors listing the known ones", async () => {
  const body = bytes(3_000, 32);
  fx.routes.set("/keep.bin", { body });
  const lock: LockFile = { version: 1, entries: { keep: entry({ file: "keep.bin", urls: [`${fx.base}/keep.bin`] }) } };
  const dir = tempDir("cspipe-lock-");
  await updateLockEntry(lock, "keep", { keepDir: dir, sleep: noSleep });
  assert.deepEqual(readFileSync(join(dir, "keep.bin")), body);
  assert.equal(existsSync(join(dir, ".partial", "keep.bin")), false);
  await assert.rejects(updateLockEntry(lock, "nope"), (err: unknown) => {
    assert.ok(err instanceof InputError);
    assert.match(err.message, /no entry named 'nope'.*use one of: keep/);
    return true;
  });
});

test("updateLockEntry on a 404 is an InputError naming the URL and status", async () => {
  const lock: LockFile = { version: 1, entries: { gone: entry({ file: "gone.bin", urls: [`${fx.base}/gone.bin`] }) } };
  await assert.rejects(updateLockEntry(lock, "gone", { sleep: noSleep }), new RegExp(`${fx.base}/gone\\.bin: HTTP 404`));
});

test("withDigest replaces exactly one entry's digest", () => {
  const lock: LockFile = { version: 1, entries: { a: entry({ file: "a" }), b: entry({ file: "b" }) } };
  const out = withDigest(lock, "a", { sha256: "e".repeat(64), size: 7 });
  assert.equal(out.entries["a"]?.sha256, "e".repeat(64));
  assert.equal(out.entries["a"]?.size, 7);
  assert.equal(out.entries["b"], lock.entries["b"]);
  assert.equal(lock.entries["a"]?.sha256, null);
});

test("the committed datasets.lock parses, is canonical, and every entry has a licence and an https URL", () => {
  const path = new URL("../../../datasets.lock", import.meta.url);
  const text = readFileSync(path, "utf8");
  const lock = parseLockFile(text, "datasets.lock");
  assert.equal(serializeLockFile(lock), text, "datasets.lock is not in canonical form: rewrite it with serializeLockFile");
  const names = Object.keys(lock.entries);
  for (const required of ["qrecc-scai-turns-train", "qrecc-scai-turns-test", "qrecc-collection", "qrecc-qrels", "qrecc-question-types", "topiocqa-wiki-segments", "topiocqa-all-history-train", "orquac-all-blocks", "dpr-nq-question-encoder", "dpr-nq-context-encoder", "bert-base-uncased-vocab", "t5-base"]) {
    assert.ok(names.includes(required), `missing entry ${required}`);
  }
  for (const [name, e] of Object.entries(lock.entries)) {
    assert.ok(e.license.trim().length > 0, `${name}: empty license`);
    assert.ok(e.urls.some((u) => u.startsWith("https://")), `${name}: no https URL`);
    assert.ok(e.description.trim().length > 0, `${name}: empty description`);
    if (e.sha256 === null) assert.match(e.notes ?? "", new RegExp(`lock --update ${name}`), `${name}: null sha256 without a note on how it gets filled`);
  }
  assert.deepEqual(checkLock(lock).duplicateFiles, []);
});
