/** `--json`: stdout is JSON lines only, the paths of exported outputs included. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "../engine/helpers.ts";

const EXPORT = join(ROOT, "cspipe-json-test.log");

test("run --json prints only JSON lines; an export is an 'exported' object with its path", () => {
  try {
    const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "pipeline", "main.ts"), "--store", join(tempDir(), "store"), "run", "exported", "--json"], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, CSPIPE_DEFINITIONS: join(ROOT, "test", "fixtures", "engine", "store-targets.ts") },
    });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trimEnd().split("\n");
    const events = lines.map((l) => {
      assert.doesNotThrow(() => JSON.parse(l), `not JSON: ${l}`);
      return JSON.parse(l) as { type: string; name?: string; path?: string; step?: string; key?: string };
    });
    const exported = events.filter((e) => e.type === "exported");
    assert.equal(exported.length, 1);
    assert.equal(exported[0]!.name, "cspipe-json-test.log");
    assert.equal(exported[0]!.path, EXPORT);
    assert.equal(exported[0]!.step, "export-me");
    assert.match(exported[0]!.key ?? "", /^[0-9a-f]{64}$/);
    assert.equal(readFileSync(EXPORT, "utf8"), "export piece 0\nexport piece 1\nexport piece 2\nexport piece 3\n");
  } finally {
    rmSync(EXPORT, { force: true });
  }
});
