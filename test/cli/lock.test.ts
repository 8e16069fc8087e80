/**
 * `lock --check` / `lock --update`: a fresh commander program with only the lock command,
 * a temp lock file, the local HTTP fixture for downloads.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { registerLockCommand } from "../../pipeline/commands/lock.ts";
import { parseLockFile, serializeLockFile, type LockFile } from "../../pipeline/engine/datasets-lock.ts";
import { startFixture, bytes, sha256Of as sha, lockEntry as entry, type Fixture } from "../data/fetch/http-fixture.ts";
import { tempDir } from "../engine/helpers.ts";

let fx: Fixture;
before(async () => {
  fx = await startFixture();
});
after(async () => {
  await fx.close();
});



function writeLock(lock: LockFile): string {
  const path = join(tempDir("cspipe-lockcli-"), "datasets.lock");
  writeFileSync(path, serializeLockFile(lock));
  return path;
}

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  let code = 0;
  const program = new Command("cspipe").exitOverride().configureOutput({ writeOut: (s) => (stdout += s), writeErr: (s) => (stderr += s) });
  registerLockCommand(program, { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, env: {} }, (c) => (code = c));
  await program.parseAsync(args, { from: "user" });
  return { code, stdout, stderr };
}

const PINNED = "ab".repeat(32);

test("lock --check: unpinned entries are listed and the exit code is 1; a fully pinned lock exits 0", async () => {
  const path = writeLock({
    version: 1,
    entries: {
      a: entry({ urls: ["https://example.org/a"], file: "a.bin", sha256: PINNED, size: 3 }),
      b: entry({ urls: ["https://example.org/b"], file: "b.bin" }),
    },
  });
  const r = await cli(["lock", "--check", "--lock", path]);
  assert.equal(r.code, 1);
  assert.equal(
    r.stdout,
    [
      "error: b: sha256 is null; get b.bin from https://example.org/b, then 'lock --update b --data-dir <dir>' (or 'lock --update b' on a machine with internet)",
      "warning: b: size is null (filled by 'lock --update b')",
      "2 entries, 1 pinned, 1 unpinned, 0 duplicate file names: not ok",
      "",
    ].join("\n"),
  );
  const ok = writeLock({ version: 1, entries: { a: entry({ urls: ["https://example.org/a"], file: "a.bin", sha256: PINNED, size: 3 }) } });
  const r2 = await cli(["lock", "--lock", ok]);
  assert.equal(r2.code, 0);
  assert.equal(r2.stdout, "1 entries, 1 pinned, 0 unpinned, 0 duplicate file names: ok\n");
});

test("lock --check on the project's datasets.lock counts its unpinned entries and fails while any remain", async () => {
  const r = await cli(["lock", "--check"]);
  const lock = parseLockFile(readFileSync(join(import.meta.dirname, "..", "..", "datasets.lock"), "utf8"));
  const unpinned = Object.values(lock.entries).filter((e) => e.sha256 === null).length;
  assert.equal(r.code, unpinned > 0 ? 1 : 0);
  assert.match(r.stdout, new RegExp(`${Object.keys(lock.entries).length} entries, ${Object.keys(lock.entries).length - unpinned} pinned, ${unpinned} unpinned`));
});

test("lock --update downloads, pins sha256 and size, rewrites the lock canonically and leaves other entries alone", async () => {
  const body = bytes(7_000, 41);
  fx.routes.set("/l/data.json", { body });
  const other = entry({ urls: ["https://example.org/o"], file: "o.bin" });
  const path = writeLock({ version: 1, entries: { data: entry({ urls: [`${fx.base}/l/data.json`], file: "data.json" }), other } });
  const r = await cli(["lock", "--update", "data", "--lock", path]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `data: pinned sha256 ${sha(body)} (7000 bytes) from ${fx.base}/l/data.json\n`);
  const text = readFileSync(path, "utf8");
  const lock = parseLockFile(text);
  assert.equal(text, serializeLockFile(lock), "canonical");
  assert.equal(lock.entries["data"]?.sha256, sha(body));
  assert.equal(lock.entries["data"]?.size, 7000);
  assert.deepEqual(lock.entries["other"], other);
  // run again: unchanged
  const again = await cli(["lock", "--update", "data", "--lock", path]);
  assert.equal(again.stdout, `data: unchanged sha256 ${sha(body)} (7000 bytes) from ${fx.base}/l/data.json\n`);
  // the publisher changes the file: reported loudly, lock updated
  const changed = bytes(7_000, 42);
  fx.routes.set("/l/data.json", { body: changed });
  const moved = await cli(["lock", "--update", "data", "--lock", path]);
  assert.match(moved.stdout, new RegExp(`data: CHANGED sha256 ${sha(body)} -> ${sha(changed)}`));
});

test("lock --update --data-dir measures a file placed by hand without any request", async () => {
  const body = bytes(1_234, 43);
  const dataDir = tempDir("cspipe-lockdd-");
  mkdirSync(join(dataDir, "sub"));
  writeFileSync(join(dataDir, "sub", "placed.txt"), body);
  const path = writeLock({ version: 1, entries: { placed: entry({ urls: [`${fx.base}/l/placed.txt`], file: "placed.txt" }) } });
  fx.log.length = 0;
  const r = await cli(["lock", "--update", "placed", "--data-dir", dataDir, "--lock", path]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(fx.log.length, 0);
  assert.equal(r.stdout, `placed: pinned sha256 ${sha(body)} (1234 bytes) from ${join(dataDir, "sub", "placed.txt")}\n`);
  assert.equal(parseLockFile(readFileSync(path, "utf8")).entries["placed"]?.size, 1234);
});

test("lock --update: an unknown entry is a usage error (2); a failed download exits 1 and keeps the lock as it was", async () => {
  const path = writeLock({ version: 1, entries: { gone: entry({ urls: [`${fx.base}/l/missing.bin`], file: "missing.bin" }) } });
  const before = readFileSync(path, "utf8");
  const unknown = await cli(["lock", "--update", "nope", "--lock", path]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no entry named 'nope'; known: gone/);
  const failed = await cli(["lock", "--update", "gone", "--lock", path]);
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /cannot download 'gone' to pin it: .*missing\.bin: HTTP 404/);
  assert.equal(readFileSync(path, "utf8"), before);
});
