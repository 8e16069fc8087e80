/**
 * The compiled CLI as a few files instead of ~390 (scripts/build.mjs, `bundle: true`; the
 * launcher's builds): Node 20's ESM loader resolves, reads, compiles and links every module on
 * its own (~1 ms each, no compile cache), and a no-op rerun loaded ~370 of them.
 *
 * The bundle is made from the per-file build, which stays next to it (`<build>/bundle/main.js`
 * beside `<build>/pipeline/main.js`): esbuild bundles the compiled modules with code splitting,
 * so what the CLI imports on demand (the definitions, reporters, executors, their packages) is a
 * chunk that loads when it is first imported, as before, and packages stay external.
 *
 * Cache keys name each step's defining module by its `import.meta.url` and hash that module's
 * source closure (pipeline/engine/sources.ts). In the bundle every module's `import.meta.url` is
 * the URL its per-file counterpart has (`<build>/<path>.js`, computed from the chunk's own URL,
 * so a build directory renamed into place still holds), so the scanner sees exactly the URLs, and
 * computes exactly the keys, of the per-file build; files a module reads next to itself (a worker
 * entry point, `*.py`, `*.json`) resolve to the per-file build's copies. Function names are kept
 * (esbuild renames clashing top-level names otherwise).
 */
import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** Where the bundle goes inside a build, and its entry point there. */
export const BUNDLE_DIR = "bundle";
export const BUNDLE_MAIN = `${BUNDLE_DIR}/main.js`;
/** The per-file module the bundle starts from. */
export const BUNDLE_ENTRY = "pipeline/main.js";

const MODULE_URL = "__cspipeModuleUrl";

/**
 * A compiled module's text with `import.meta.url` replaced by the URL of its per-file copy
 * (`rel`, relative to the build), computed from the chunk's URL: chunks sit in BUNDLE_DIR, one
 * level below the build.
 */
export async function withModuleUrl(esbuild, text, rel) {
  if (!text.includes("import.meta")) return text;
  const { code } = await esbuild.transform(text, { loader: "js", format: "esm", target: "node20", define: { "import.meta.url": MODULE_URL } });
  if (!code.includes(MODULE_URL)) return code;
  return `const ${MODULE_URL} = new URL(${JSON.stringify(`../${rel}`)}, import.meta.url).href;\n${code}`;
}

/** Bundles `<buildDir>/pipeline/main.js` into `<buildDir>/bundle/`. Returns the chunk count and seconds. */
export async function bundleBuild(esbuild, buildDir) {
  const t0 = performance.now();
  const moduleUrls = {
    name: "cspipe-module-urls",
    setup(b) {
      b.onLoad({ filter: /\.m?js$/ }, async (args) => {
        const rel = relative(buildDir, args.path).split(sep).join("/");
        if (rel.startsWith("../")) return undefined;
        return { contents: await withModuleUrl(esbuild, readFileSync(args.path, "utf8"), rel), loader: "js" };
      });
    },
  };
  const r = await esbuild.build({
    entryPoints: { main: join(buildDir, BUNDLE_ENTRY) },
    outdir: join(buildDir, BUNDLE_DIR),
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    keepNames: true,
    chunkNames: "chunk-[hash]",
    metafile: true,
    logLevel: "silent",
    plugins: [moduleUrls],
  });
  return { chunks: Object.keys(r.metafile.outputs).length, seconds: (performance.now() - t0) / 1000 };
}
