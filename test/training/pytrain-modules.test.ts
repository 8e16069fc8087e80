/** steps/pytrain/__init__.py's docstring names every module of the package, one a line, and no other. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./python.ts";

test("pytrain's docstring lists each of its modules once, and only those", () => {
  const dir = join(ROOT, "steps/pytrain");
  const modules = readdirSync(dir).filter((f) => f.endsWith(".py") && f !== "__init__.py").map((f) => f.slice(0, -3)).sort();
  const doc = /^"""([\s\S]*?)"""/.exec(readFileSync(join(dir, "__init__.py"), "utf8"))![1]!;
  const listed = [...doc.matchAll(/^ {4}(\w+) {2,}\S/gm)].map((m) => m[1]!).sort();
  assert.ok(modules.length >= 28);
  assert.deepEqual(listed, modules);
});
