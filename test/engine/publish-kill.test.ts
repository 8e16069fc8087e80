/**
 * The kill test of processes.test.ts, at random points during publish: each step writes a
 * directory of 150 files, then the engine hashes them, records stamps, writes the
 * fingerprint and manifest and renames the entry into place. A SIGKILL at a random moment
 * after the step's last write must never leave an entry that looks complete but is not,
 * and the next run must finish with the same entries (keys and output digests) in every trial.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { outputDigest } from "../../pipeline/engine/digest.ts";
import { mulberry32 } from "../../steps/lib/prng.ts";
import { ROOT, project, run, tempDir } from "./helpers.ts";
import { buildTargets } from "../fixtures/engine/store-targets.ts";

const MAIN = join(ROOT, "pipeline", "main.ts");
const DEFS = join(ROOT, "test", "fixtures", "engine", "store-targets.ts");
const env = { ...process.env, CSPIPE_DEFINITIONS: DEFS };

/** Every directory under entries/ is complete: a manifest whose digests match the bytes. */
async function assertEntriesComplete(store: string, when: string): Promise<number> {
  const root = join(store, "entries");
  let n = 0;
  for (const id of existsSync(root) ? readdirSync(root) : []) {
    for (const key of readdirSync(join(root, id))) {
      const dir = join(root, id, key);
      const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { key: string; outputs: Record<string, { path: string; dir: boolean; digest: string }> };
      assert.equal(manifest.key, key, when);
      assert.ok(existsSync(join(dir, "fingerprint.json")), when);
      for (const o of Object.values(manifest.outputs)) assert.equal((await outputDigest(join(dir, "outputs", o.path), o.dir)).digest, o.digest, `${when}: ${dir}`);
      n++;
    }
  }
  return n;
}

/** Step name -> "key:output digest" of every published entry. */
function keysByName(store: string): Record<string, string> {
  const out: Record<string, string> = {};
  const root = join(store, "entries", "many-files");
  for (const key of readdirSync(root)) {
    const m = JSON.parse(readFileSync(join(root, key, "manifest.json"), "utf8")) as { step: { name: string }; outputs: { files: { digest: string } } };
    out[m.step.name] = `${key}:${m.outputs.files.digest}`;
  }
  return out;
}

const cli = (store: string) => spawn(process.execPath, ["--import", "tsx", MAIN, "--store", store, "run", "many", "--concurrency", "1", "--json"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
const closed = (c: ReturnType<typeof cli>) => new Promise<number | null>((r) => c.on("close", (code) => r(code)));

test("SIGKILL at random points during publish leaves only complete entries; every rerun finishes with the same entries", { timeout: 180_000 }, async () => {
  let expected: Record<string, string> | undefined;
  const rnd = mulberry32(20261122);
  for (let trial = 0; trial < 3; trial++) {
    const store = join(tempDir(), "store");
    const victim = Math.floor(rnd() * 4);
    const delayMs = Math.floor(rnd() * 60);
    const when = `trial ${trial} (many-${victim} + ${delayMs} ms)`;
    const child = cli(store);
    let armed = false;
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const ev = JSON.parse(line) as { type: string; step?: string };
      // The step's last write is done: from here on the engine is publishing it.
      if (!armed && ev.type === "progress" && ev.step === `many-${victim}`) {
        armed = true;
        setTimeout(() => child.kill("SIGKILL"), delayMs);
      }
    });
    await closed(child);
    assert.ok(armed, when);
    assert.ok((await assertEntriesComplete(store, when)) <= 4);
    // The recovery run, in this process (the same engine as the CLI, without another start-up).
    const rerun = await run(project(buildTargets(), { store }), ["many"], { concurrency: 1 });
    assert.equal(rerun.outcome.ok, true, `${when}: the rerun finishes`);
    assert.equal(await assertEntriesComplete(store, `${when}, rerun`), 4);
    expected ??= keysByName(store);
    assert.deepEqual(keysByName(store), expected, when);
  }
});
