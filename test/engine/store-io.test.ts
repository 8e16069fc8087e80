/**
 * Disk-full and permission errors while a step runs or publishes are run failures (exit 1)
 * naming the path and the fix, and leave no staging behind: an injected write error, a
 * full tmpfs and read-only mounts (these need `mount`, so root; skipped, saying why, where
 * it is refused).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { use } from "../../pipeline/engine/step.ts";
import { describeFailure } from "../../pipeline/engine/failures.ts";
import { ROOT, project, registry, run, makeTextStep, tempDir } from "./helpers.ts";
import { buildTargets } from "../fixtures/engine/store-targets.ts";

const { make } = makeTextStep();
const listing = (d: string) => (existsSync(d) ? readdirSync(d) : []);

test("an injected ENOSPC while publishing: a run failure naming the path and the fix; staging is removed", async () => {
  const p = project(registry({ t: () => [use(make, { name: "make", params: { text: "x" }, inputs: {} })] }));
  const publish = p.store.publish.bind(p.store);
  p.store.publish = async (staging) => {
    const path = join(staging, "manifest.json");
    throw Object.assign(new Error(`ENOSPC: no space left on device, write '${path}'`), { code: "ENOSPC", syscall: "write", path });
  };
  const r = await run(p, ["t"]);
  assert.equal(r.outcome.ok, false);
  assert.deepEqual(r.outcome.analysis, []);
  const f = ("result" in r.outcome ? r.outcome.result : undefined)!.failures[0]!;
  assert.equal(f.reason, "store-failed");
  const text = describeFailure(f);
  assert.match(text, /no space left/);
  assert.ok(text.includes(p.store.root), text);
  assert.match(text, /Fix: free space/);
  assert.deepEqual(listing(join(p.store.root, "staging")), []);
  p.store.publish = publish;
  assert.equal((await run(p, ["t"])).outcome.ok, true, "the store works again once there is space");
});

const MAIN = join(ROOT, "pipeline", "main.ts");
const DEFS = join(ROOT, "test", "fixtures", "engine", "store-targets.ts");
const cli = (args: string[]) => spawnSync(process.execPath, ["--import", "tsx", MAIN, ...args], { cwd: ROOT, encoding: "utf8", env: { ...process.env, CSPIPE_DEFINITIONS: DEFS } });

/** Mount a tmpfs of `size` at a fresh directory; undefined (with the reason) where mounting is refused. */
function tmpfs(size: string): { dir: string; remountReadOnly(): void; unmount(): void } | string {
  const d = tempDir("cspipe-tmpfs-");
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", d], { encoding: "utf8" });
  if (r.status !== 0) return `mount refused: ${(r.stderr || r.error?.message || "").trim()}`;
  return {
    dir: d,
    remountReadOnly: () => assert.equal(spawnSync("mount", ["-o", "remount,ro", d]).status, 0),
    unmount: () => void spawnSync("umount", ["-l", d]),
  };
}

test("a store on a full disk: exit 1, the path and the fix; nothing left in staging", (t) => {
  const fs = tmpfs("256k");
  if (typeof fs === "string") return t.skip(fs);
  try {
    const store = join(fs.dir, "store");
    const r = cli(["--store", store, "run", "many"]);
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /no space left on device/i);
    assert.ok((r.stdout + r.stderr).includes(store), r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /Fix: free space/);
    assert.deepEqual(listing(join(store, "staging")), []);
  } finally {
    fs.unmount();
  }
});

test("a read-only store and a read-only parent directory: exit 1 naming the directory and the real cause", async (t) => {
  const fs = tmpfs("1m");
  if (typeof fs === "string") return t.skip(fs);
  try {
    const store = join(fs.dir, "store");
    assert.equal((await run(project(buildTargets(), { store }), ["quick"])).outcome.ok, true);
    fs.remountReadOnly();
    // The entry is cached: reading a read-only store is fine.
    assert.equal(cli(["--store", store, "run", "quick"]).status, 0);
    const r = cli(["--store", store, "run", "hold"]);
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /read-only/);
    assert.ok((r.stdout + r.stderr).includes(store));
    assert.match(r.stdout + r.stderr, /Fix: .*--store/);
    const nested = join(fs.dir, "sub", "store");
    const n = cli(["--store", nested, "run", "hold"]);
    assert.equal(n.status, 1, n.stdout + n.stderr);
    assert.doesNotMatch(n.stdout + n.stderr, /ENOENT/);
    assert.match(n.stdout + n.stderr, /read-only/);
    assert.ok((n.stdout + n.stderr).includes(fs.dir));
  } finally {
    fs.unmount();
  }
});

