/**
 * SourceScanner.fingerprint answers a repeated question (every step of a definitions module
 * asks with the same module URL) from memory, and only an identical question.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { SourceScanner } from "../../pipeline/engine/sources.ts";
import { tempDir } from "../tmp.ts";

test("the same module URL and extra sources get the same answer; other extras or paths their own", () => {
  const root = tempDir();
  mkdirSync(join(root, "m"));
  writeFileSync(join(root, "package.json"), "{}\n");
  writeFileSync(join(root, "m", "a.ts"), 'import { b } from "./b.ts";\nexport const a = b;\n');
  writeFileSync(join(root, "m", "b.ts"), "export const b = 1;\n");
  writeFileSync(join(root, "m", "data.json"), "{}\n");
  const scanner = new SourceScanner(root);
  const url = pathToFileURL(join(root, "m", "a.ts")).href;
  const first = scanner.fingerprint(url);
  assert.deepEqual(Object.keys(first.files), ["m/a.ts", "m/b.ts"]);
  assert.equal(scanner.fingerprint(url), first);
  assert.deepEqual(scanner.fingerprint(join(root, "m", "a.ts")), first, "the path and the URL of one module: one closure");
  const withData = scanner.fingerprint(url, ["m/data.json"]);
  assert.deepEqual(Object.keys(withData.files), ["m/a.ts", "m/b.ts", "m/data.json"]);
  assert.equal(scanner.fingerprint(url, ["m/data.json"]), withData);
  assert.equal(scanner.fingerprint(url), first);
});
