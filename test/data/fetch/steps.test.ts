/**
 * The `fetch-dataset` step through the engine (a temp store and lock, a local HTTP server),
 * and `--data real` end to end: the mini releases placed by hand under their lock-file
 * names, fetched offline, assembled and preprocessed to the same tables as the mini path.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";
import { use } from "../../../pipeline/engine/step.ts";
import type { RunSettings } from "../../../pipeline/engine/step.ts";
import type { LockEntry, LockFile } from "../../../pipeline/engine/datasets-lock.ts";
import { readLockFile } from "../../../pipeline/engine/datasets-lock.ts";
import { describeFailure, type RunFailure } from "../../../pipeline/engine/failures.ts";
import { Project } from "../../../pipeline/session.ts";
import { fetchStepDef } from "../../../steps/data/fetch/steps.ts";
import { dataTarget } from "../../../pipeline/definitions/datasets.ts";
import { RAW_ASSEMBLY } from "../../../steps/data/assemble.ts";
import { writeMiniDataset } from "../../../steps/data/mini/index.ts";
import type { MiniParamsOverrides } from "../../../steps/data/mini/index.ts";
import { serializeLockFile } from "../../../pipeline/engine/datasets-lock.ts";
import { TargetRegistry } from "../../../pipeline/engine/targets.ts";
import { ROOT, project, registry, run, tempDir } from "../../engine/helpers.ts";
import { startFixture, bytes, sha256Of as sha, lockEntry as entry, type Fixture } from "./http-fixture.ts";
import { storedZip } from "./zip-fixture.ts";

let fx: Fixture;
before(async () => {
  fx = await startFixture();
});
after(async () => {
  await fx.close();
});



/** A project whose only target fetches one entry; returns it with its store dir. */
function fetchProject(name: string, e: LockEntry) {
  const store = join(tempDir("cspipe-fetchstep-"), "store");
  const lock: LockFile = { version: 1, entries: { [name]: e } };
  const targets = registry({ fetch: () => [use(fetchStepDef(name), { name: `fetch-dataset.${name}`, params: { entry: name }, inputs: {} })] });
  return { p: project(targets, { store, lock }), store };
}

async function fetchRun(name: string, e: LockEntry, settings: RunSettings = {}, store?: { p: Project; store: string }) {
  const s = store ?? fetchProject(name, e);
  const r = await run(s.p, ["fetch"], { settings });
  assert.equal(r.outcome.analysis.length, 0, JSON.stringify(r.outcome.analysis));
  const result = "result" in r.outcome ? r.outcome.result : undefined;
  const step = result?.results.get(`fetch-dataset.${name}`);
  const outDir = step?.entry ? join(step.entry.dir, "outputs", "files") : undefined;
  const failure: RunFailure | undefined = result?.failures[0];
  return { ...s, r, outDir, failure, message: failure && "message" in failure ? failure.message : "" };
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

const storeEntries = (store: string): string[] => (existsSync(join(store, "entries", "fetch-dataset")) ? readdirSync(join(store, "entries", "fetch-dataset")) : []);

test("a pinned file is downloaded, verified and published as files/<file>; the scratch is emptied; a rerun is a cache hit", async () => {
  const body = bytes(20_000, 31);
  fx.routes.set("/s/model.bin", { body });
  const e = entry({ urls: [`${fx.base}/s/model.bin`], file: "model.bin", sha256: sha(body), size: body.length });
  const first = await fetchRun("model", e);
  assert.equal(first.failure, undefined, first.message);
  assert.deepEqual(filesUnder(first.outDir!), ["model.bin"]);
  assert.deepEqual(readFileSync(join(first.outDir!, "model.bin")), body);
  assert.deepEqual(readdirSync(join(first.store, "scratch", "fetch-dataset", "model", ".partial")), []);
  assert.equal(existsSync(join(first.store, "scratch", "fetch-dataset", "model", "model.bin")), false, "moved, not copied");
  const again = await run(first.p, ["fetch"]);
  assert.deepEqual(again.hits, ["fetch-dataset.model"]);
  assert.deepEqual(again.executed, []);
});

test("an archive keeps only its unpacked tree (not the .gz as well)", async () => {
  const text = Buffer.from("line one\nline two\n");
  const gz = gzipSync(text);
  fx.routes.set("/s/blocks.txt.gz", { body: gz });
  const e = entry({ urls: [`${fx.base}/s/blocks.txt.gz`], file: "blocks.txt.gz", sha256: sha(gz), size: gz.length, unpack: "gz", provides: ["blocks.txt"] });
  const r = await fetchRun("blocks", e);
  assert.equal(r.failure, undefined, r.message);
  assert.deepEqual(filesUnder(r.outDir!), ["blocks.txt"]);
  assert.deepEqual(readFileSync(join(r.outDir!, "blocks.txt")), text);
  assert.equal(existsSync(join(r.store, "scratch", "fetch-dataset", "blocks", "blocks.txt.gz")), false);
});

test("offline: fails at once naming the URL, the expected sha256 and --data-dir; nothing is published", async () => {
  const body = bytes(1_000, 32);
  const e = entry({ urls: [`${fx.base}/s/never.json`], file: "never.json", sha256: sha(body), size: body.length });
  fx.log.length = 0;
  const r = await fetchRun("never", e, { offline: true });
  assert.equal(r.failure?.reason, "bad-input");
  assert.ok(r.message.includes(`${fx.base}/s/never.json`), r.message);
  assert.ok(r.message.includes(sha(body)), r.message);
  assert.match(r.message, /--data-dir <dir>/);
  assert.match(r.message, /'never\.json'/);
  assert.equal(fx.log.length, 0, "no request was made");
  assert.deepEqual(storeEntries(r.store), []);
});

test("a digest mismatch names both digests, deletes the download and publishes nothing", async () => {
  const body = bytes(3_000, 33);
  fx.routes.set("/s/changed.bin", { body });
  const wrong = "cd".repeat(32);
  const e = entry({ urls: [`${fx.base}/s/changed.bin`], file: "changed.bin", sha256: wrong });
  const r = await fetchRun("changed", e);
  assert.equal(r.failure?.reason, "bad-input");
  assert.ok(r.message.includes(wrong) && r.message.includes(sha(body)), r.message);
  assert.deepEqual(storeEntries(r.store), []);
  const scratch = join(r.store, "scratch", "fetch-dataset", "changed");
  assert.equal(existsSync(join(scratch, "changed.bin")), false);
  assert.equal(existsSync(join(scratch, ".partial", "changed.bin")), false);
});

test("a download killed midway resumes from its .partial with a Range request", async () => {
  const body = bytes(50_000, 34);
  fx.routes.set("/s/big.bin", { body });
  const e = entry({ urls: [`${fx.base}/s/big.bin`], file: "big.bin", sha256: sha(body), size: body.length });
  const s = fetchProject("big", e);
  // what a killed run leaves behind: the first 12,345 bytes in the step's persistent scratch
  const partialDir = join(s.store, "scratch", "fetch-dataset", "big", ".partial");
  mkdirSync(partialDir, { recursive: true });
  writeFileSync(join(partialDir, "big.bin"), body.subarray(0, 12_345));
  fx.log.length = 0;
  const r = await fetchRun("big", e, {}, s);
  assert.equal(r.failure, undefined, r.message);
  assert.deepEqual(fx.log, [{ path: "/s/big.bin", range: "bytes=12345-" }]);
  assert.deepEqual(readFileSync(join(r.outDir!, "big.bin")), body);
});

test("an unpinned entry is refused before anything runs, asking for lock --update; --allow-unpinned fetches it and logs the digest", async () => {
  const body = bytes(500, 35);
  fx.routes.set("/s/loose.txt", { body });
  const e = entry({ urls: [`${fx.base}/s/loose.txt`], file: "loose.txt" });
  const s = fetchProject("loose", e);
  const requests = fx.log.length;
  const refused = await run(s.p, ["fetch"]);
  const analysis = [...refused.outcome.analysis];
  const message = analysis.map(describeFailure).join("\n");
  assert.deepEqual(analysis, [{ reason: "dataset-unpinned", step: "fetch-dataset.loose", dataset: "loose", file: "loose.txt", urls: [`${fx.base}/s/loose.txt`] }]);
  assert.match(message, /^fetch-dataset\.loose: datasets\.lock entry 'loose' has no sha256 yet/);
  assert.match(message, /'lock --update loose'/);
  assert.match(message, /--allow-unpinned/);
  assert.deepEqual(refused.executed, []);
  assert.equal(fx.log.length, requests, "nothing was requested");
  const allowed = await fetchRun("loose", e, { allowUnpinned: true }, s);
  assert.equal(allowed.failure, undefined, allowed.message);
  const log = allowed.r.events.filter((ev) => ev.type === "log").map((ev) => (ev as { line: string }).line).join("\n");
  assert.ok(log.includes(`not pinned: got sha256 ${sha(body)}`), log);
  // Once fetched, nothing needs downloading: a run without the flag is a cache hit.
  const again = await fetchRun("loose", e, {}, s);
  assert.equal(again.failure, undefined, again.message);
  assert.deepEqual(again.r.hits, ["fetch-dataset.loose"]);
});

test("--data-dir: a file placed by hand is verified and used offline", async () => {
  const body = bytes(2_000, 36);
  const dataDir = tempDir("cspipe-datadir-");
  mkdirSync(join(dataDir, "downloads"));
  writeFileSync(join(dataDir, "downloads", "hand.json"), body);
  const e = entry({ urls: [`${fx.base}/s/not-served.json`], file: "hand.json", sha256: sha(body), size: body.length });
  const r = await fetchRun("hand", e, { offline: true, dataDir });
  assert.equal(r.failure, undefined, r.message);
  assert.deepEqual(readFileSync(join(r.outDir!, "hand.json")), body);
  assert.deepEqual(readFileSync(join(dataDir, "downloads", "hand.json")), body, "the user's file is untouched");
});

// ---------------------------------------------------------------------------------------
// --data real, end to end on mini releases placed by hand.

const SMALL: MiniParamsOverrides = { entities: 40, trainTurns: 80, devTurns: 30, testTurns: 30, standaloneTrain: 0, standaloneDev: 0 };

test("--data real: fetched (offline, --data-dir), assembled and preprocessed to the same tables as the mini path", async () => {
  const lock = readLockFile(join(ROOT, "datasets.lock"));
  const dataDir = tempDir("cspipe-real-");
  const mini = tempDir("cspipe-realmini-");
  const entries: Record<string, LockEntry> = {};
  const place = (name: string, data: Buffer) => {
    const e = lock.entries[name];
    assert.ok(e, name);
    writeFileSync(join(dataDir, e.file), data);
    entries[name] = { ...e, sha256: sha(data), size: data.length };
  };
  for (const [dataset, miniName] of [["qrecc", "mini-qrecc"], ["topiocqa", "mini-topiocqa"], ["orquac", "mini-orquac"]] as const) {
    const raw = join(mini, dataset);
    await writeMiniDataset(miniName, SMALL, raw);
    // Not the answers' files: only end-to-end QA reads them, and the data target must fetch none (the count below).
    for (const part of RAW_ASSEMBLY[dataset].filter((p) => p.part !== "answers")) {
      const e = lock.entries[part.entry]!;
      const src = join(raw, part.to);
      if (e.unpack === "none") place(part.entry, readFileSync(src));
      else if (e.unpack === "gz") place(part.entry, gzipSync(readFileSync(src)));
      else if (e.unpack === "zip") place(part.entry, storedZip(filesUnder(src).map((f) => ({ name: `${part.from}/${f}`, data: readFileSync(join(src, f)) }))));
      else assert.fail(`no fixture for unpack ${e.unpack}`);
    }
  }
  const dir = tempDir("cspipe-realproj-");
  const lockPath = join(dir, "datasets.lock");
  writeFileSync(lockPath, serializeLockFile({ version: 1, entries }));
  const targets = new TargetRegistry().register(dataTarget);
  const store = join(dir, "store");
  const real = new Project({ root: ROOT, store, lockPath, targets, env: {}, data: "real" });
  const outcome = await run(real, ["data"], { settings: { offline: true, dataDir }, concurrency: 2 });
  const result = "result" in outcome.outcome ? outcome.outcome.result : undefined;
  assert.ok(result?.ok, JSON.stringify(result?.failures ?? outcome.outcome.analysis));
  assert.deepEqual(
    outcome.executed.filter((s) => !s.startsWith("fetch-dataset.")),
    [
      "assemble-raw-orquac-collection", "assemble-raw-orquac-turns.dev+test+train", "assemble-raw-qrecc-collection", "assemble-raw-qrecc-turns.test+train",
      "assemble-raw-topiocqa-collection", "assemble-raw-topiocqa-turns.dev+train", "preprocess-collection-real-orquac", "preprocess-collection-real-qrecc",
      "preprocess-collection-real-topiocqa", "preprocess-real-orquac", "preprocess-real-qrecc", "preprocess-real-topiocqa",
    ],
  );
  assert.equal(outcome.executed.filter((s) => s.startsWith("fetch-dataset.")).length, Object.keys(entries).length);

  const { preprocessDataset } = await import("../../../steps/data/preprocess/registry.ts");
  const { locateCollection, locateTurns } = await import("../../../steps/data/layout.ts");
  for (const dataset of ["qrecc", "topiocqa", "orquac"] as const) {
    const prep = result.results.get(`preprocess-real-${dataset}`)?.entry;
    const coll = result.results.get(`preprocess-collection-real-${dataset}`)?.entry;
    assert.ok(prep && coll, dataset);
    // the same preprocessors on the generator's own directory
    const outDir = join(mini, `${dataset}-out`);
    const params = dataset === "qrecc" ? { devConversations: 2000 } : {};
    const root = join(mini, dataset);
    await preprocessDataset(dataset, { ...locateTurns(dataset, root), collectionFiles: locateCollection(dataset, root), outDir, params });
    const tables: [string, string][] = [[prep.dir, "turns.parquet"], [coll.dir, "passages.parquet"], [prep.dir, "qrels.parquet"]];
    for (const [entryDir, table] of tables) {
      const got: Buffer = readFileSync(join(entryDir, "outputs", table));
      assert.equal(sha(got), sha(readFileSync(join(outDir, table))), `${dataset} ${table}`);
    }
  }
  // the assembled raw directories hold hard links (same store filesystem), not symlinks
  const asm = result.results.get("assemble-raw-orquac-turns.dev+test+train")?.entry;
  const asmColl = result.results.get("assemble-raw-orquac-collection")?.entry;
  assert.ok(asm && asmColl);
  assert.deepEqual(filesUnder(join(asm.dir, "outputs", "raw")), ["preprocessed/dev.txt", "preprocessed/test.txt", "preprocessed/train.txt", "qrels.txt"]);
  assert.deepEqual(filesUnder(join(asmColl.dir, "outputs", "raw")), ["all_blocks.txt"]);
  assert.ok(statSync(join(asmColl.dir, "outputs", "raw", "all_blocks.txt")).nlink >= 2);
});
