import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import { fetchEntry } from "../../../steps/data/fetch/fetch-entry.ts";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { startFixture, closedPort, bytes, noSleep, sha256Of as sha, lockEntry as entry, type Fixture } from "./http-fixture.ts";
import { tempDir } from "../../tmp.ts";

let fx: Fixture;
before(async () => {
  fx = await startFixture();
});
after(async () => {
  await fx.close();
});

const tmp = (): string => tempDir("cspipe-fetch-");


test("download: verified by sha256 and size, published as <dest>/<file>, .partial emptied", async () => {
  const body = bytes(30_000, 21);
  fx.routes.set("/ok.bin", { body, cut: { bytes: 9_000, times: 1 } });
  const dest = tmp();
  const e = entry({ urls: [`${fx.base}/ok.bin`], file: "ok.bin", sha256: sha(body), size: body.length });
  const r = await fetchEntry("ok", e, { destDir: dest, sleep: noSleep });
  assert.equal(r.source, "download");
  assert.equal(r.sha256, sha(body));
  assert.equal(r.unpinned, false);
  assert.deepEqual(readFileSync(join(dest, "ok.bin")), body);
  assert.deepEqual(readdirSync(join(dest, ".partial")), []);
  // a second call reuses the verified file without any request
  fx.log.length = 0;
  const again = await fetchEntry("ok", e, { destDir: dest, offline: true });
  assert.equal(again.source, "existing");
  assert.equal(fx.log.length, 0);
});

test("digest mismatch: the error names both digests and no final file is published", async () => {
  const body = bytes(2_000, 22);
  fx.routes.set("/bad.bin", { body });
  const dest = tmp();
  const wrong = "ab".repeat(32);
  const e = entry({ urls: [`${fx.base}/bad.bin`], file: "bad.bin", sha256: wrong });
  await assert.rejects(fetchEntry("bad", e, { destDir: dest, sleep: noSleep }), (err: unknown) => {
    assert.ok(err instanceof InputError);
    assert.ok(err.message.includes(wrong), err.message);
    assert.ok(err.message.includes(sha(body)), err.message);
    assert.equal(err.field, "entries.bad.sha256");
    assert.match(err.message, /lock --update bad/);
    return true;
  });
  assert.equal(existsSync(join(dest, "bad.bin")), false);
  assert.equal(existsSync(join(dest, ".partial", "bad.bin")), false);
});

test("size mismatch announced by the server is refused before the body is kept", async () => {
  const body = bytes(1_000, 23);
  fx.routes.set("/size.bin", { body });
  const dest = tmp();
  const e = entry({ urls: [`${fx.base}/size.bin`], file: "size.bin", sha256: sha(body), size: 999 });
  await assert.rejects(fetchEntry("size", e, { destDir: dest, sleep: noSleep }), /server reports 1000 bytes, datasets.lock expects 999/);
  assert.equal(existsSync(join(dest, "size.bin")), false);
});

test("--data-dir: found in a subfolder, verified, linked without touching the original", async () => {
  const body = bytes(4_000, 24);
  const dataDir = tmp();
  mkdirSync(join(dataDir, "qrecc"));
  const original = join(dataDir, "qrecc", "turns.json");
  writeFileSync(original, body);
  const before = statSync(original);
  const dest = tmp();
  const e = entry({ urls: ["https://cspipe-test.invalid/turns.json"], file: "turns.json", sha256: sha(body), size: body.length });
  const r = await fetchEntry("turns", e, { destDir: dest, dataDir, offline: true });
  assert.equal(r.source, "data-dir");
  assert.equal(r.from, original);
  assert.deepEqual(readFileSync(join(dest, "turns.json")), body);
  const afterStat = statSync(original);
  assert.equal(afterStat.mode, before.mode);
  assert.equal(afterStat.mtimeMs, before.mtimeMs);
  assert.deepEqual(readFileSync(original), body);
});

test("--data-dir: a wrong file is an error naming its digest and the expected one", async () => {
  const dataDir = tmp();
  const bad = bytes(100, 25);
  writeFileSync(join(dataDir, "x.json"), bad);
  const expected = sha(bytes(100, 26));
  const e = entry({ urls: ["https://cspipe-test.invalid/x.json"], file: "x.json", sha256: expected });
  await assert.rejects(fetchEntry("x", e, { destDir: tmp(), dataDir, offline: true }), (err: unknown) => {
    assert.ok(err instanceof InputError);
    assert.ok(err.message.includes(sha(bad)));
    assert.ok(err.message.includes(expected));
    assert.equal(err.file, join(dataDir, "x.json"));
    return true;
  });
});

test("offline: closed port and unresolvable host fail fast with URL, digest and --data-dir instructions", async () => {
  const port = await closedPort();
  const digest = "cd".repeat(32);
  const e = entry({ urls: [`http://127.0.0.1:${port}/passages.zip`, "https://cspipe-test.invalid/passages.zip"], file: "passages.zip", sha256: digest, size: 123 });
  let sleeps = 0;
  await assert.rejects(fetchEntry("qrecc-collection", e, { destDir: tmp(), sleep: async () => void sleeps++ }), (err: unknown) => {
    assert.ok(err instanceof InputError);
    assert.ok(err.message.includes(`http://127.0.0.1:${port}/passages.zip`), err.message);
    assert.ok(err.message.includes("https://cspipe-test.invalid/passages.zip"));
    assert.ok(err.message.includes(digest));
    assert.match(err.message, /--data-dir <dir>/);
    assert.match(err.message, /looked up by file name/);
    assert.match(err.message, /'passages\.zip'/);
    assert.equal(err.field, "entries.qrecc-collection.urls");
    return true;
  });
  assert.equal(sleeps, 0);
});

test("offline option: no request at all, and the message says where it looked", async () => {
  fx.log.length = 0;
  const dataDir = tmp();
  const e = entry({ urls: [`${fx.base}/never.bin`], file: "never.bin", sha256: "ef".repeat(32) });
  await assert.rejects(fetchEntry("never", e, { destDir: tmp(), dataDir, offline: true }), (err: unknown) => {
    assert.ok(err instanceof InputError);
    assert.ok(err.message.includes(`--data-dir ${dataDir}`));
    return true;
  });
  assert.equal(fx.log.length, 0);
});

test("unpinned: refused by default with the lock --update instruction; allowed explicitly with the digest reported", async () => {
  const body = bytes(700, 27);
  fx.routes.set("/unpinned.bin", { body });
  const e = entry({ urls: [`${fx.base}/unpinned.bin`], file: "unpinned.bin" });
  fx.log.length = 0;
  await assert.rejects(fetchEntry("free", e, { destDir: tmp() }), (err: unknown) => {
    assert.ok(err instanceof InputError);
    assert.equal(err.field, "entries.free.sha256");
    assert.match(err.message, /lock --update free/);
    assert.match(err.message, /--allow-unpinned/);
    return true;
  });
  assert.equal(fx.log.length, 0);
  const r = await fetchEntry("free", e, { destDir: tmp(), allowUnpinned: true, sleep: noSleep });
  assert.equal(r.unpinned, true);
  assert.equal(r.sha256, sha(body));
  assert.equal(r.size, 700);
  assert.equal(r.notes.length, 1);
  assert.ok(r.notes[0]?.includes(sha(body)));
  assert.match(r.notes[0] ?? "", /lock --update free/);
});

test("gz entries are unpacked and 'provides' is checked", async () => {
  const text = Buffer.from('{"id":"a","text":"x"}\n');
  const gz = gzipSync(text);
  fx.routes.set("/blocks.txt.gz", { body: gz });
  const dest = tmp();
  const e = entry({ urls: [`${fx.base}/blocks.txt.gz`], file: "blocks.txt.gz", sha256: sha(gz), unpack: "gz", provides: ["blocks.txt"] });
  const r = await fetchEntry("blocks", e, { destDir: dest, sleep: noSleep });
  assert.equal(r.unpackedDir, join(dest, "unpacked"));
  assert.deepEqual(readFileSync(join(dest, "unpacked", "blocks.txt")), text);
  const wrong = { ...e, provides: ["all_blocks.txt"] };
  await assert.rejects(fetchEntry("blocks", wrong, { destDir: dest }), /lacks 'all_blocks\.txt'/);
});
