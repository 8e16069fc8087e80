/**
 * ./cspipe runs the bundled CLI (scripts/bundle.mjs); CSPIPE_LAUNCH=modules runs the same build
 * module by module. The two must compute the same keys: what one path ran the other finds cached,
 * and the default target's plan (every step's source closure, the first steps' keys) is the same.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../engine/helpers.ts";
import { tempDir } from "../tmp.ts";
import { cspipe } from "./cspipe.ts";

const MODULES = { CSPIPE_LAUNCH: "modules" };

function finished(stdout: string): { executed: number; cached: number } {
  const events = stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { type: string; executed: number; cached: number });
  const fin = events.find((e) => e.type === "finished");
  assert.ok(fin, stdout);
  return { executed: fin.executed, cached: fin.cached };
}

test("the bundled and the per-file CLI compute the same keys", () => {
  const dir = tempDir("cspipe-bundle-keys-");
  const store = join(dir, "store");
  const run = (env: Record<string, string> = {}) => {
    const r = cspipe(["run", "--json", "--store", store, "--export-dir", join(dir, "export"), "data"], { env });
    assert.equal(r.status, 0, r.stderr);
    return finished(r.stdout);
  };
  const bundled = run();
  // that run was the bundle's: the build it used has one
  const builds = process.env.CSPIPE_BUILDS_DIR ?? join(ROOT, ".cspipe", "builds");
  const current = JSON.parse(readFileSync(join(builds, "current.json"), "utf8")) as { id: string };
  assert.ok(existsSync(join(builds, current.id, "bundle", "main.js")));
  assert.equal(bundled.cached, 0);
  assert.ok(bundled.executed > 0);
  assert.deepEqual(run(MODULES), { executed: 0, cached: bundled.executed });
  const plan = (env: Record<string, string> = {}) => {
    const r = cspipe(["plan", "report", "--store", store, "--format", "json"], { env });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as { nodes: { status: string; key?: string; sources?: string[] }[] };
  };
  const viaBundle = plan();
  assert.deepEqual(plan(MODULES), viaBundle);
  // the plan compared keys and closures, not only names: the data steps are cached under their keys
  assert.equal(viaBundle.nodes.filter((n) => n.status === "cached" && n.key !== undefined).length, bundled.executed);
  assert.ok(viaBundle.nodes.every((n) => (n.sources ?? []).length > 0));
});
