/**
 * scripts/build.mjs compiles a namespace import of a lazy CommonJS package (LAZY_PACKAGES) to a
 * proxy module that requires the package the first time an export is read; other imports stay.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
// @ts-expect-error -- plain JavaScript build script without declarations
import { LAZY_PACKAGES, lazyModule, rewriteSpecifiers } from "../../scripts/build.mjs";
import { tempDir } from "../tmp.ts";

test("only a namespace import of a lazy package is rewritten", () => {
  const code = 'import * as pw from "parquet-wasm";\nimport { Table } from "parquet-wasm";\nimport * as arrow from "apache-arrow";\n';
  const r = rewriteSpecifiers(code, new Map(), new Map([["parquet-wasm", "../vendor/lazy/parquet-wasm.js"]]));
  assert.equal(r.code, 'import pw from "../vendor/lazy/parquet-wasm.js";\nimport { Table } from "parquet-wasm";\nimport * as arrow from "apache-arrow";\n');
  assert.deepEqual(r.lazy, ["parquet-wasm"]);
  assert.deepEqual(LAZY_PACKAGES, ["parquet-wasm", "onnxruntime-node"]);
});

test("the proxy answers as the package does, loading it on first use", async () => {
  const file = join(tempDir("cspipe-build-lazy-"), "path.js");
  writeFileSync(file, lazyModule("node:path"));
  const lazy = (await import(pathToFileURL(file).href)) as { default: { join(...parts: string[]): string } };
  const path = await import("node:path");
  assert.equal(lazy.default.join("a", "b"), "a/b");
  assert.equal("basename" in lazy.default, true);
  assert.deepEqual(Object.keys(lazy.default).sort(), Object.keys(path.default).sort());
});
