#!/usr/bin/env node
/**
 * Precompiles the TypeScript sources to dist/ so the CLI starts with plain `node`
 * (no tsx loader: about 0.1 s less per command):
 *
 *   node scripts/build.mjs [--root <dir>] [--out <dir>] [--dirs pipeline,steps,bench/engine] [--quiet]
 *
 * (`--dirs` takes folders or single files, relative to the root.)
 *   node dist/pipeline/main.js run ...
 *
 * One output file per source file (no bundling), so every module keeps its own
 * import.meta.url and the cache keys stay those of the .ts sources: the source scanner
 * (pipeline/engine/sources.ts) maps `dist/<path>.js` back to `<path>.ts` and hashes the
 * source. Relative `.ts` import specifiers (static, `export ... from`, `import("...")`,
 * `new URL("./x.ts", import.meta.url)`) are rewritten to `.js`; non-TS files the code
 * reads next to itself (`*.json`, and `*.py` such as the Dagger executor's log_tee.py) are
 * copied, so every file the CLI's source closure reaches is in the build manifest.
 *
 * Pure-JS ESM packages that cost start-up time because they are many small files (zod: ~95
 * modules, ~40 ms; apache-arrow: ~150 modules, ~120 ms) are bundled once into
 * dist/vendor/<name>.js and imported from there (~10x faster to load); the manifest records
 * their installed versions, which are what cache keys name. Those of LAZY_VENDOR (apache-arrow)
 * are bundled as CommonJS (dist/vendor/<name>.cjs) and load on first use, as below.
 *
 * CommonJS packages that cost start-up time but only a few steps use when they run (parquet-wasm
 * compiles its WebAssembly, ~0.1 s CPU; onnxruntime-node loads its native binding, ~0.06 s) are
 * loaded on first use: a namespace import of one (`import * as pw from "parquet-wasm"`, the only
 * form the sources use) is compiled to a proxy from dist/vendor/lazy/<name>.js that `require`s the
 * installed package the first time one of its exports is read. The same installed files load as
 * before (what keys name), only later, so a command that runs none of those steps (plan, a no-op
 * rerun) never loads them. Other import forms of these packages load eagerly, as written.
 *
 * With `bundle` (the launcher's builds, not `npm run build`), the CLI is also bundled into a few
 * files under bundle/ (scripts/bundle.mjs), each module keeping the import.meta.url of its
 * per-file copy, so keys are unchanged.
 *
 * dist/build-manifest.json records the sha256 of every source a dist file was built from;
 * the scanner refuses (`dist/ is stale: run npm run build`) when a source in a step's import
 * closure no longer matches, so stale compiled code can never run under a key that names
 * new source. The build writes into a fresh directory and swaps it in at the end.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BUNDLE_ENTRY, bundleBuild } from "./bundle.mjs";

export const MANIFEST_NAME = "build-manifest.json";
export const DEFAULT_DIRS = ["pipeline", "steps", "bench/engine"];
/** Packages bundled into dist/vendor/ (pure JS, no import.meta.url or native code). */
export const DEFAULT_VENDOR = ["zod", "apache-arrow"];
/**
 * Modules of a vendored package replaced when it is bundled, with why. zod's namespace (`z`, the
 * only form the sources import) re-exports every locale's messages (`z.locales`, ~45% of the
 * bundle, compiled on every command); the sources never select one (`z.config`), and zod sets its
 * English messages from `locales/en.js` itself, so `z.locales` keeps `en` alone.
 */
export const VENDOR_TRIMS = {
  zod: [{ module: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/, contents: 'export { default as en } from "./en.js";\n' }],
};

/** The esbuild plugins that apply a package's VENDOR_TRIMS (none for most). */
export function vendorPlugins(pkg) {
  const trims = VENDOR_TRIMS[pkg] ?? [];
  if (trims.length === 0) return [];
  const setup = (b) => {
    for (const t of trims) b.onLoad({ filter: t.module }, () => ({ contents: t.contents, loader: "js" }));
  };
  return [{ name: `cspipe-trim-${pkg}`, setup }];
}

/** CommonJS packages whose namespace imports load on first use (dist/vendor/lazy/<name>.js). */
export const LAZY_PACKAGES = ["parquet-wasm", "onnxruntime-node"];

/**
 * Vendored packages whose namespace imports load on first use too, from a CommonJS bundle the
 * proxy requires (dist/vendor/<name>.cjs): apache-arrow is in the closure of most step modules
 * (steps/data/schemas.ts), but only steps that read or write Parquet use it, and a plan or a
 * no-op rerun none (~480 KB of code to compile). Their other import forms would load a second
 * copy beside the lazy one: the build refuses them.
 */
export const LAZY_VENDOR = ["apache-arrow"];

/** The module a lazy package's namespace import is compiled to: a proxy that requires the package (or `from`) on first use. */
export function lazyModule(pkg, from = pkg) {
  return `// ${pkg}, required on first use (scripts/build.mjs: LAZY_PACKAGES, LAZY_VENDOR)
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
let loaded;
const load = () => (loaded ??= require(${JSON.stringify(from)}));
export default new Proxy(Object.create(null), {
  get: (_, k) => load()[k],
  has: (_, k) => k in load(),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_, k) => {
    const d = Reflect.getOwnPropertyDescriptor(load(), k);
    return d === undefined ? undefined : { ...d, configurable: true };
  },
});
`;
}
const TS_EXT = /\.(ts|mts)$/;
const ASSET_EXT = /\.(json|py)$/;

/** sha256 of a file as the scanner hashes it (its text, UTF-8). */
export function digest(text) {
  return createHash("sha256").update(text).digest("hex");
}

/** Files under `dir` (absolute and normalised), sorted per folder. Paths are joined by hand: path.join normalises each (~0.01 s of the launcher's ~400 files). */
function walk(dir, out = []) {
  for (const name of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (name.name.startsWith(".") || name.name === "node_modules" || name.name === "__pycache__") continue;
    const p = `${dir}${sep}${name.name}`;
    if (name.isDirectory()) walk(p, out);
    else if (name.isFile()) out.push(p);
  }
  return out;
}

/** The files a build of `dirs` reads (compiled modules and copied assets), absolute, sorted per folder. */
export function sourceFiles(root, dirs = DEFAULT_DIRS) {
  return dirs
    .flatMap((d) => {
      const abs = resolve(root, d);
      if (!existsSync(abs)) throw new Error(`build: ${d} does not exist under ${root}`);
      return statSync(abs).isDirectory() ? walk(abs) : [abs];
    })
    .filter((p) => !p.endsWith(".d.ts") && (TS_EXT.test(p) || ASSET_EXT.test(p)));
}

/** Bundles an installed package into one file (`format` "esm" or "cjs"), with its default export when it has one. */
async function bundleVendor(esbuild, root, pkg, outfile, format) {
  const bundlePkg = (contents) =>
    esbuild.build({ stdin: { contents, resolveDir: root, loader: "js" }, bundle: true, format, platform: "node", target: "node20", outfile, plugins: vendorPlugins(pkg), logLevel: "silent" });
  const star = `export * from ${JSON.stringify(pkg)};\n`;
  await bundlePkg(`${star}export { default } from ${JSON.stringify(pkg)};\n`).catch(() => bundlePkg(star));
}

/** Installed versions of the vendored packages (what cache keys name and dist/vendor/ bundles). */
export function vendorVersions(root, vendor = DEFAULT_VENDOR) {
  const installed = {};
  for (const pkg of vendor) {
    const pkgJson = join(root, "node_modules", pkg, "package.json");
    if (existsSync(pkgJson)) installed[pkg] = String(JSON.parse(readFileSync(pkgJson, "utf8")).version ?? "unknown");
  }
  return installed;
}

/** The packages of `pkgs` that compiled `code` still imports by name (after rewriteSpecifiers). */
export function eagerImports(code, pkgs) {
  const found = new Set();
  for (const m of code.matchAll(/(?:\bfrom\s*|^[ \t]*import\s*|\bimport\(\s*)"([^"\n]+)"/gm)) if (pkgs.includes(m[1])) found.add(m[1]);
  return [...found];
}

/** `./a/b.ts` -> `./a/b.js`, `./c.mts` -> `./c.mjs`. */
function jsSpecifier(spec) {
  return spec.replace(/\.ts$/, ".js").replace(/\.mts$/, ".mjs");
}

// esbuild prints every specifier as a double-quoted string on the import's own line.
const SPECIFIERS = [
  /(\bfrom\s*)"(\.{1,2}\/[^"\n]*?\.m?ts)"/g, // import ... from / export ... from
  /(^[ \t]*import\s*)"(\.{1,2}\/[^"\n]*?\.m?ts)"/gm, // import "./side-effect.ts"
  /(\bimport\(\s*)"(\.{1,2}\/[^"\n]*?\.m?ts)"/g, // import("./lazy.ts")
  /(\bnew URL\(\s*)"(\.{1,2}\/[^"\n]*?\.m?ts)"(?=\s*,\s*import\.meta\.url\s*\))/g, // worker entry points
];

/**
 * Rewrite relative TS specifiers of one compiled module to their .js names; returns the code and
 * the specifiers it rewrote (so the build can check that each target was compiled too).
 */
export function rewriteSpecifiers(code, vendored = new Map(), lazy = new Map()) {
  const rewritten = [];
  const usedVendored = new Set();
  const usedLazy = new Set();
  let out = code.replace(/^([ \t]*)import \* as ([\w$]+) from "([^"\n]+)";/gm, (m, indent, name, spec) => {
    const to = lazy.get(spec);
    if (to === undefined) return m;
    usedLazy.add(spec);
    return `${indent}import ${name} from "${to}";`;
  });
  out = out.replace(/(\bfrom\s*|^[ \t]*import\s*|\bimport\(\s*)"([^".][^"\n]*)"/gm, (m, lead, spec) => {
    const to = vendored.get(spec);
    if (to === undefined) return m;
    usedVendored.add(spec);
    return `${lead}"${to}"`;
  });
  for (const re of SPECIFIERS) {
    out = out.replace(re, (_m, lead, spec) => {
      rewritten.push(spec);
      return `${lead}"${jsSpecifier(spec)}"`;
    });
  }
  return { code: out, rewritten, vendored: [...usedVendored], lazy: [...usedLazy] };
}

async function loadEsbuild(root) {
  try {
    return await import("esbuild");
  } catch {
    // esbuild ships with tsx; fall back to tsx's copy when it is not hoisted.
    const req = createRequire(join(root, "package.json"));
    const tsxReq = createRequire(req.resolve("tsx/package.json"));
    return await import(pathToFileURL(tsxReq.resolve("esbuild")).href);
  }
}

/**
 * Where a compiled module imports its vendored packages from (a path relative to the module):
 * each eager package's one bundle, and the lazy wrappers (LAZY_PACKAGES and the LAZY_VENDOR ones).
 */
function vendorPaths(tmp, installed) {
  const fromOut = (out, file) => `./${relative(dirname(out), join(tmp, "vendor", file)).split(sep).join("/")}`.replace(/^\.\/\.\.\//, "../");
  const lazyVendored = Object.keys(installed).filter((pkg) => LAZY_VENDOR.includes(pkg));
  return {
    lazyVendored,
    vendoredFrom: (out) => new Map(Object.keys(installed).filter((pkg) => !lazyVendored.includes(pkg)).map((pkg) => [pkg, fromOut(out, `${pkg}.js`)])),
    lazyFrom: (out) => new Map([...LAZY_PACKAGES, ...lazyVendored].map((pkg) => [pkg, fromOut(out, `lazy/${pkg}.js`)])),
  };
}

/** One TypeScript source compiled to `<tmp>/<r>.js` (and its map), its specifiers rewritten; the packages and relative imports it used are recorded in `acc`. */
async function compileModule(esbuild, src, r, tmp, vendor, acc) {
  const text = readFileSync(src, "utf8");
  const out = join(tmp, r.replace(/\.ts$/, ".js").replace(/\.mts$/, ".mjs"));
  const result = await esbuild.transform(text, {
    loader: "ts",
    format: "esm",
    target: "node20",
    sourcefile: relative(dirname(out), src).split(sep).join("/"),
    sourcemap: "external",
    sourcesContent: false,
  });
  const { code, rewritten, vendored, lazy } = rewriteSpecifiers(result.code, vendor.vendoredFrom(out), vendor.lazyFrom(out));
  for (const pkg of vendored) acc.usedVendored.add(pkg);
  for (const pkg of lazy) acc.usedLazy.add(pkg);
  const eager = eagerImports(code, vendor.lazyVendored);
  if (eager.length > 0) throw new Error(`build: ${r} imports ${eager.join(", ")} other than as a namespace (import * as x): LAZY_VENDOR packages load through one lazy copy`);
  for (const spec of rewritten) acc.imports.push({ from: r, target: acc.rel(resolve(dirname(src), spec)) });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${code}//# sourceMappingURL=${basename(out)}.map\n`);
  writeFileSync(`${out}.map`, result.map);
  acc.files[r] = digest(text);
  acc.built.add(r);
}

/** An asset (JSON, Python, ...) copied as it is. */
function copyAsset(src, r, tmp, acc) {
  const bytes = readFileSync(src);
  const out = join(tmp, r);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, bytes);
  acc.files[r] = digest(bytes.toString("utf8"));
  acc.built.add(r);
}

/** Bundles the vendored packages the compiled modules import (eager ones as ESM, lazy ones as CJS behind a wrapper); returns their versions. */
async function bundleVendors(esbuild, root, tmp, installed, lazyVendored, acc) {
  const packages = {};
  for (const pkg of [...acc.usedVendored].sort()) {
    packages[pkg] = installed[pkg];
    await bundleVendor(esbuild, root, pkg, join(tmp, "vendor", `${pkg}.js`), "esm");
  }
  for (const pkg of [...acc.usedLazy].sort()) {
    mkdirSync(join(tmp, "vendor", "lazy"), { recursive: true });
    if (!lazyVendored.includes(pkg)) {
      writeFileSync(join(tmp, "vendor", "lazy", `${pkg}.js`), lazyModule(pkg));
      continue;
    }
    packages[pkg] = installed[pkg];
    await bundleVendor(esbuild, root, pkg, join(tmp, "vendor", `${pkg}.cjs`), "cjs");
    writeFileSync(join(tmp, "vendor", "lazy", `${pkg}.js`), lazyModule(pkg, `../${pkg}.cjs`));
  }
  return packages;
}

/** Swaps the new tree in: a reader sees either the old or the new complete dist. */
function swapIn(tmp, outDir) {
  const old = `${tmp}.old`;
  if (existsSync(outDir)) renameSync(outDir, old);
  renameSync(tmp, outDir);
  rmSync(old, { recursive: true, force: true });
}

/**
 * Build `dirs` (relative to root) into outDir. Returns counts; throws if a relative import
 * points at a file that is not part of the build.
 */
export async function build({ root, outDir = join(root, "dist"), dirs = DEFAULT_DIRS, vendor = DEFAULT_VENDOR, bundle = false }) {
  const t0 = performance.now();
  const esbuild = await loadEsbuild(root);
  const rel = (p) => relative(root, p).split(sep).join("/");
  const sources = sourceFiles(root, dirs);
  const tmp = join(dirname(outDir), `.${basename(outDir)}.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  const acc = { rel, files: {}, built: new Set(), imports: [], usedVendored: new Set(), usedLazy: new Set() };
  let compiled = 0;
  let copied = 0;
  // The version the scanner puts in keys comes from the same package.json files.
  const installed = vendorVersions(root, vendor);
  try {
    const paths = vendorPaths(tmp, installed);
    for (const src of sources) {
      const r = rel(src);
      if (r.endsWith(".d.ts")) continue;
      if (TS_EXT.test(r)) {
        await compileModule(esbuild, src, r, tmp, paths, acc);
        compiled++;
      } else if (ASSET_EXT.test(r)) {
        copyAsset(src, r, tmp, acc);
        copied++;
      }
    }
    const missing = acc.imports.filter((i) => !acc.built.has(i.target));
    if (missing.length > 0) {
      throw new Error(`build: imports outside the build (add their folder to --dirs): ${missing.map((m) => `${m.from} -> ${m.target}`).join(", ")}`);
    }
    const packages = await bundleVendors(esbuild, root, tmp, installed, paths.lazyVendored, acc);
    // The CLI as a few files beside the per-file build (scripts/bundle.mjs), when asked and the CLI is built.
    if (bundle && existsSync(join(tmp, BUNDLE_ENTRY))) await bundleBuild(esbuild, tmp);
    const manifest = { format: 1, dirs, files: acc.files, packages };
    writeFileSync(join(tmp, MANIFEST_NAME), `${JSON.stringify(manifest, null, 1)}\n`);
    swapIn(tmp, outDir);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  return { compiled, copied, seconds: (performance.now() - t0) / 1000, outDir };
}

async function cli() {
  const { values } = parseArgs({
    options: {
      root: { type: "string" },
      out: { type: "string" },
      dirs: { type: "string" },
      "no-vendor": { type: "boolean", default: false },
      quiet: { type: "boolean", default: false },
    },
  });
  const root = resolve(values.root ?? join(dirname(fileURLToPath(import.meta.url)), ".."));
  const r = await build({
    root,
    outDir: resolve(values.out ?? join(root, "dist")),
    dirs: values.dirs ? values.dirs.split(",").filter(Boolean) : DEFAULT_DIRS,
    vendor: values["no-vendor"] ? [] : DEFAULT_VENDOR,
  });
  if (!values.quiet) process.stdout.write(`built ${relative(process.cwd(), r.outDir) || "."}: ${r.compiled} modules, ${r.copied} assets in ${r.seconds.toFixed(2)} s\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  cli().catch((e) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
