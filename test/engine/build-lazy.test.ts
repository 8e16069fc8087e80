/**
 * scripts/build.mjs compiles a namespace import of a lazy CommonJS package (LAZY_PACKAGES) to a
 * proxy module that requires the package the first time an export is read; other imports stay.
 * A lazily vendored package (LAZY_VENDOR) loads the same way from its CommonJS bundle, and the
 * build refuses its other import forms (they would load a second copy).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
// @ts-expect-error -- plain JavaScript build script without declarations
import { LAZY_PACKAGES, LAZY_VENDOR, eagerImports, lazyModule, rewriteSpecifiers } from "../../scripts/build.mjs";
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

test("a lazily vendored package's other import forms are found", () => {
  assert.deepEqual(LAZY_VENDOR, ["apache-arrow"]);
  const lazy = new Map([["apache-arrow", "../vendor/lazy/apache-arrow.js"]]);
  const ns = rewriteSpecifiers('import * as arrow from "apache-arrow";\nimport { z } from "zod";\n', new Map(), lazy);
  assert.equal(ns.code, 'import arrow from "../vendor/lazy/apache-arrow.js";\nimport { z } from "zod";\n');
  assert.deepEqual(eagerImports(ns.code, LAZY_VENDOR), []);
  for (const form of ['import { Table } from "apache-arrow";', 'export * from "apache-arrow";', 'import "apache-arrow";', 'const a = await import("apache-arrow");']) {
    assert.deepEqual(eagerImports(rewriteSpecifiers(`${form}\n`, new Map(), lazy).code, LAZY_VENDOR), ["apache-arrow"], form);
  }
});

test("a lazily vendored package's proxy requires its bundle, not the package", async () => {
  const dir = tempDir("cspipe-build-lazy-");
  mkdirSync(join(dir, "lazy"));
  writeFileSync(join(dir, "pkg.cjs"), "exports.answer = 42;\n");
  writeFileSync(join(dir, "lazy", "pkg.js"), lazyModule("some-package", "../pkg.cjs"));
  const lazy = (await import(pathToFileURL(join(dir, "lazy", "pkg.js")).href)) as { default: { answer: number } };
  assert.equal(lazy.default.answer, 42);
});
