/**
 * scripts/build.mjs VENDOR_TRIMS: the vendored zod keeps English messages and `z.locales.en`
 * only (the other locales were ~45% of the bundle every command compiled).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import type { z as Z } from "zod";
// @ts-expect-error -- plain JavaScript build script without declarations
import { vendorPlugins } from "../../scripts/build.mjs";
import { findProjectRoot } from "../../pipeline/engine/sources.ts";
import { tempDir } from "../tmp.ts";

test("the vendored zod parses and reports in English with its other locales left out", async () => {
  const outfile = join(tempDir("cspipe-vendor-"), "zod.mjs");
  await esbuild.build({
    stdin: { contents: 'export * from "zod";\n', resolveDir: findProjectRoot(), loader: "js" },
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outfile,
    plugins: vendorPlugins("zod") as esbuild.Plugin[],
    logLevel: "silent",
  });
  const { z } = (await import(pathToFileURL(outfile).href)) as { z: typeof Z };
  assert.deepEqual(Object.keys(z.locales), ["en"]);
  const schema = z.object({ n: z.number().int().default(3) }).strict();
  assert.deepEqual(schema.parse({}), { n: 3 });
  const r = schema.safeParse({ n: "x", extra: 1 });
  assert.deepEqual(r.error?.issues.map((i) => i.message), ["Invalid input: expected number, received string", 'Unrecognized key: "extra"']);
  assert.deepEqual(vendorPlugins("apache-arrow"), []);
});
