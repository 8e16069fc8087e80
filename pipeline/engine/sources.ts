/**
 * The source component of a cache key: the import closure of the module that defines a
 * step, each file hashed by content, plus the versions of the npm packages it imports.
 * Editing a helper invalidates exactly the steps whose closure contains it.
 *
 * Imports are found with a deliberately small scanner (static `import`/`export ... from`,
 * side-effect imports, dynamic imports of a string literal, and `new URL` of a relative
 * literal against import.meta.url, for worker entry points and data files read next to the
 * module, when that file exists); `import type` lines are
 * skipped because they cannot change behaviour (importSpecifiers still lists them, for the
 * import-cycle test). Node builtins are not hashed. A package loaded
 * through `createRequire(import.meta.url)("name")` is a package of the module like an imported one.
 *
 * Extra sources are files, directories, or `python:<root>:<module>`: a Python module's import
 * closure as Python resolves it with <root> on sys.path (python-imports.ts). defineStep adds the
 * program a step's argv runs that way (programs.ts), so a Python helper's edit re-keys exactly
 * the steps whose programs can import it, as a TypeScript helper's does.
 *
 * Compiled runs (`npm run build`, then `node dist/pipeline/main.js`): a module under dist/
 * is fingerprinted as the project source it was compiled from (`dist/a/b.js` -> `a/b.ts`),
 * so a compiled run and a tsx run compute the same keys and share one store. The build
 * records the sha256 of every source in dist/build-manifest.json; while hashing the closure
 * of a compiled module the scanner compares each digest with the recorded one (no extra
 * reads) and throws `dist/ is stale` on any difference, so stale compiled code never runs
 * under a key that names newer source.
 */
import { readFileSync, existsSync, statSync, readdirSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { sha256Hex } from "./canonical.ts";
import { InputError } from "./errors.ts";
import { PYTHON_SOURCE } from "./programs.ts";
import { PythonImportResolver, pythonImports } from "./python-imports.ts";
import { SourceMemo } from "./source-memo.ts";

/** Written by scripts/build.mjs into the dist directory. */
export const BUILD_MANIFEST = "build-manifest.json";
const REBUILD = "run `npm run build`, or use `./cspipe`, which rebuilds its own compiled copy when sources change";

/** dist/build-manifest.json, written by scripts/build.mjs. */
export interface BuildManifest {
  readonly format: 1;
  /** Project-relative source path -> sha256 of the text it was compiled (or copied) from. */
  readonly files: Readonly<Record<string, string>>;
  /** npm packages bundled into dist/vendor/ -> the version they were bundled from. */
  readonly packages?: Readonly<Record<string, string>>;
}

export interface ScannerOptions {
  /** Where compiled modules live (default `<root>/dist`). */
  readonly distDir?: string;
  /** Where to remember what each file said across processes, by its stat stamp (source-memo.ts); default: nowhere. */
  readonly memoFile?: string;
}

export interface SourceFingerprint {
  /** Project-relative path -> sha256 of the file's bytes. */
  readonly files: Record<string, string>;
  /** npm package name -> installed version, for bare imports in the closure. */
  readonly packages: Record<string, string>;
}

interface ModuleInfo {
  digest: string;
  localDeps: string[];
  packages: string[];
}

/** What a module's text says: its digest, the specifiers it imports, the relative files it names with `new URL(..., import.meta.url)`. */
interface ModuleText {
  readonly digest: string;
  readonly specs: readonly string[];
  readonly urlRefs: readonly string[];
}

const IMPORT_FROM = /^[ \t]*(import|export)\s+(type\s+)?(?:[^;'"]*?)\s*from\s*["']([^"']+)["']/gm;
const SIDE_EFFECT = /^[ \t]*import\s*["']([^"']+)["']/gm;
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;
const URL_REF = /\bnew URL\(\s*["'](\.{1,2}\/[^"']+)["']\s*,\s*import\.meta\.url\s*\)/g;
const CREATE_REQUIRE = /\bcreateRequire\([^)]*\)\(\s*["']([^"']+)["']\s*\)/g;
/** Files whose imports are followed; other files (JSON, data) are hashed only. */
const SCRIPT = /\.(?:[cm]?[jt]s|tsx)$/;
const EXTENSIONS = ["", ".ts", ".tsx", ".mts", ".js", ".mjs", "/index.ts", "/index.js"];

const scanStats = { ms: 0 };
/** Milliseconds this process spent computing source fingerprints (bench/engine's breakdown). */
export function sourceScanStats(): { readonly ms: number } {
  return { ...scanStats };
}

export class SourceScanner {
  private readonly modules = new Map<string, ModuleInfo>();
  private readonly packageVersions = new Map<string, string>();
  private readonly closures = new Map<string, SourceFingerprint>();
  private readonly python = new Map<string, PythonImportResolver>();
  /** fingerprint()'s answers by its arguments (a module URL or absolute path, and the extra sources). */
  private readonly answered = new Map<string, SourceFingerprint>();
  readonly distDir: string;
  private buildManifest: BuildManifest | undefined;
  private readonly memo: SourceMemo;

  constructor(
    readonly root: string,
    options: ScannerOptions = {},
  ) {
    this.distDir = resolve(options.distDir ?? join(root, "dist"));
    this.memo = new SourceMemo(options.memoFile);
  }

  /**
   * Fingerprint of a module (file URL or absolute path) and extra project-relative sources.
   * A compiled module under dist/ is fingerprinted as its source; throws InputError when
   * dist/ was built from other bytes than the sources in its closure.
   */
  fingerprint(entry: string, extraSources: readonly string[] = []): SourceFingerprint {
    // Every step of a definitions module asks with the same URL: answer repeats without
    // converting and mapping the path again (relative paths depend on the cwd: not kept).
    const asked = entry.startsWith("file:") || isAbsolute(entry) ? `${entry}\0${extraSources.join("\0")}` : undefined;
    const known = asked === undefined ? undefined : this.answered.get(asked);
    if (known) return known;
    const t0 = performance.now();
    try {
      const fp = this.closureOf(entry, extraSources);
      if (asked !== undefined) this.answered.set(asked, fp);
      return fp;
    } finally {
      scanStats.ms += performance.now() - t0;
    }
  }

  private closureOf(entry: string, extraSources: readonly string[]): SourceFingerprint {
    const given = entry.startsWith("file:") ? fileURLToPath(entry) : resolve(entry);
    const compiled = this.isCompiled(given);
    const entryPath = compiled ? this.sourceOfCompiled(given) : given;
    const cacheKey = `${compiled ? "dist" : "src"}\0${entryPath}\0${extraSources.join("\0")}`;
    const cached = this.closures.get(cacheKey);
    if (cached) return cached;
    const files: Record<string, string> = {};
    const packages: Record<string, string> = {};
    const stack = [entryPath];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const path = stack.pop()!;
      if (seen.has(path)) continue;
      seen.add(path);
      const info = this.module(path);
      const rel = this.rel(path);
      if (compiled) this.checkBuilt(rel, info.digest);
      files[rel] = info.digest;
      for (const dep of info.localDeps) stack.push(dep);
      for (const pkg of info.packages) {
        packages[pkg] = this.packageVersion(pkg);
        if (compiled) this.checkVendored(pkg, packages[pkg]);
      }
    }
    for (const extra of extraSources) {
      for (const path of this.extraFiles(extra)) {
        const rel = this.rel(path);
        const digest = this.memo.answer(path, "bytes", (bytes) => sha256Hex(bytes));
        // Files dist/ holds a copy of (JSON read next to a module) must match too.
        if (compiled && this.manifest().files[rel] !== undefined) this.checkBuilt(rel, digest);
        files[rel] = digest;
      }
    }
    // Frozen: every step of a module shares these records, and cache keys remember their canonical JSON (fingerprint.ts).
    const fp = { files: Object.freeze(sortRecord(files)), packages: Object.freeze(sortRecord(packages)) };
    this.closures.set(cacheKey, fp);
    this.memo.save();
    return fp;
  }

  /** True for a path inside the dist directory (a compiled module). */
  isCompiled(path: string): boolean {
    const r = relative(this.distDir, path);
    return r !== "" && !r.startsWith("..") && !isAbsolute(r);
  }

  /**
   * The project source a compiled module was built from: `dist/a/b.js` -> `<root>/a/b.ts`
   * (`.mjs` -> `.mts`), looked up in the build manifest.
   */
  sourceOfCompiled(path: string): string {
    const rel = relative(this.distDir, path).split(sep).join("/");
    const base = rel.replace(/\.m?js$/, "");
    const candidates = rel.endsWith(".mjs") ? [`${base}.mts`] : rel.endsWith(".js") ? [`${base}.ts`, `${base}.tsx`] : [rel];
    const files = this.manifest().files;
    const source = candidates.find((c) => files[c] !== undefined);
    if (source === undefined) {
      throw new InputError(`dist/ is stale: ${this.rel(path)} was not produced by the last build`, { file: this.rel(path), fix: REBUILD });
    }
    return join(this.root, ...source.split("/"));
  }

  private manifest(): BuildManifest {
    if (this.buildManifest) return this.buildManifest;
    const file = join(this.distDir, BUILD_MANIFEST);
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, "utf8"));
    } catch (e) {
      throw new InputError(`dist/ has no readable build manifest (${(e as Error).message})`, { file: this.rel(file), fix: REBUILD });
    }
    const m = parsed as Partial<BuildManifest> | null;
    if (!m || m.format !== 1 || typeof m.files !== "object" || m.files === null) {
      throw new InputError("unknown build manifest format", { file: this.rel(file), field: "format", fix: REBUILD });
    }
    this.buildManifest = m as BuildManifest;
    return this.buildManifest;
  }

  /** Throws when dist/ bundles another version of a package than the installed one (the one keys name). */
  private checkVendored(pkg: string, installed: string): void {
    const bundled = this.manifest().packages?.[pkg];
    if (bundled === undefined || bundled === installed) return;
    throw new InputError(`dist/ is stale: it bundles ${pkg} ${bundled}, installed is ${installed}`, { file: `dist/vendor/${pkg}.js`, fix: REBUILD });
  }

  /** Throws unless dist/ was built from exactly this source text. */
  private checkBuilt(rel: string, digest: string): void {
    const built = this.manifest().files[rel];
    if (built === digest) return;
    const why = built === undefined ? "not in the last build" : "changed since the last build";
    throw new InputError(`dist/ is stale: ${why}`, { file: rel, fix: REBUILD });
  }

  private rel(path: string): string {
    return relative(this.root, path).split(sep).join("/");
  }

  /** The files of one extra source: a file, a directory's files, or a Python module's import closure. */
  private extraFiles(extra: string): string[] {
    const py = PYTHON_SOURCE.exec(extra);
    if (py === null) return this.expand(resolve(this.root, extra));
    let resolver = this.python.get(py[1]!);
    if (resolver === undefined) {
      resolver = new PythonImportResolver(resolve(this.root, py[1]!), (file) => this.memo.answer(file, "python", (bytes) => pythonImports(bytes.toString("utf8"))));
      this.python.set(py[1]!, resolver);
    }
    return resolver.closure(py[2]!);
  }

  private expand(path: string): string[] {
    if (!existsSync(path)) throw new Error(`extra source ${this.rel(path)} does not exist`);
    if (!statSync(path).isDirectory()) return [path];
    const out: string[] = [];
    for (const name of readdirSync(path).sort()) {
      if (name === "__pycache__" || name.startsWith(".")) continue;
      out.push(...this.expand(join(path, name)));
    }
    return out;
  }

  private module(path: string): ModuleInfo {
    const hit = this.modules.get(path);
    if (hit) return hit;
    const said = this.memo.answer(path, "module", (bytes) => moduleText(path, bytes.toString("utf8")));
    const localDeps: string[] = [];
    const packages: string[] = [];
    for (const spec of said.specs) {
      if (spec.startsWith("node:")) continue;
      if (spec.startsWith(".") || spec.startsWith("/")) {
        localDeps.push(this.resolveLocal(path, spec));
      } else {
        const pkg = packageName(spec);
        if (!isBuiltin(pkg)) packages.push(pkg);
      }
    }
    const urlRefs = [...new Set(said.urlRefs.map((r) => resolve(dirname(path), r)))].sort();
    for (const ref of urlRefs) if (isFile(ref) && !localDeps.includes(ref)) localDeps.push(ref);
    const info = { digest: said.digest, localDeps, packages };
    this.modules.set(path, info);
    return info;
  }

  private resolveLocal(from: string, spec: string): string {
    const file = resolveLocalImport(from, spec);
    if (file === undefined) throw new Error(`${this.rel(from)}: cannot resolve import '${spec}'`);
    return file;
  }

  private packageVersion(pkg: string): string {
    const hit = this.packageVersions.get(pkg);
    if (hit !== undefined) return hit;
    let version = "unknown";
    const file = join(this.root, "node_modules", pkg, "package.json");
    if (existsSync(file)) version = String((JSON.parse(readFileSync(file, "utf8")) as { version?: unknown }).version ?? "unknown");
    this.packageVersions.set(pkg, version);
    return version;
  }
}

/** The specifiers a script names (pure, each list sorted): those it loads, and those only `import type` / `export type` lines name. */
export interface ImportSpecifiers {
  /** Loaded at run time (static, side-effect, dynamic and `createRequire` imports): these enter keys. */
  readonly loaded: readonly string[];
  /** Named only by type-only lines, which the build erases: never in a key, but edges of the import graph (test/engine/import-cycles.test.ts). */
  readonly typeOnly: readonly string[];
}

export function importSpecifiers(text: string): ImportSpecifiers {
  const loaded = new Set<string>();
  const typeOnly = new Set<string>();
  for (const m of text.matchAll(IMPORT_FROM)) (m[2] ? typeOnly : loaded).add(m[3]!);
  for (const m of text.matchAll(SIDE_EFFECT)) loaded.add(m[1]!);
  for (const m of text.matchAll(DYNAMIC)) loaded.add(m[1]!);
  for (const m of text.matchAll(CREATE_REQUIRE)) loaded.add(m[1]!);
  for (const s of loaded) typeOnly.delete(s);
  return { loaded: [...loaded].sort(), typeOnly: [...typeOnly].sort() };
}

/** What a module's text says (pure): its sha256, and for a script the specifiers it loads (sorted) and `new URL` references. */
function moduleText(path: string, text: string): ModuleText {
  if (!SCRIPT.test(path)) return { digest: sha256Hex(text), specs: [], urlRefs: [] };
  const urlRefs = [...text.matchAll(URL_REF)].map((m) => m[1]!);
  return { digest: sha256Hex(text), specs: importSpecifiers(text).loaded, urlRefs };
}

/** The file a relative or absolute specifier names from module `from`, as the scanner resolves it; undefined when none exists. */
export function resolveLocalImport(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  return EXTENSIONS.map((ext) => base + ext).find(isFile);
}

/** An existing regular file (following links), in one stat: resolution stays live, and a graph's closures resolve ~1,000 imports. */
function isFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false; // ENOTDIR, EACCES, ...: as existsSync said
  }
}

function packageName(spec: string): string {
  const parts = spec.split("/");
  return spec.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

const BUILTINS = new Set([
  "assert", "buffer", "child_process", "crypto", "events", "fs", "http", "https", "net", "os", "path", "process",
  "readline", "stream", "string_decoder", "timers", "url", "util", "worker_threads", "zlib", "perf_hooks", "v8", "tty",
]);
function isBuiltin(pkg: string): boolean {
  return BUILTINS.has(pkg.split("/")[0]!);
}

function sortRecord(r: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(r).sort()) out[k] = r[k]!;
  return out;
}

/**
 * For a compiled run: the compiled counterpart of a project TypeScript module
 * (`<root>/a/b.ts` -> `<distDir>/a/b.js`, `.mts` -> `.mjs`). Other paths are returned unchanged.
 * Throws InputError when the module lies outside the project or was not compiled.
 */
export function compiledModule(root: string, path: string, distDir: string = join(root, "dist")): string {
  const m = /\.(m?)tsx?$/.exec(path);
  if (!m) return path;
  const fromDist = relative(resolve(distDir), path);
  if (fromDist !== "" && !fromDist.startsWith("..") && !isAbsolute(fromDist)) return path;
  const rel = relative(root, path);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) {
    throw new InputError("a compiled run (node dist/...) cannot load TypeScript from outside the project", {
      file: path,
      fix: "run it with `./cspipe` (it runs such modules under tsx), or compile the module to .js and point at that",
    });
  }
  const out = join(resolve(distDir), rel.slice(0, -m[0].length) + (m[1] ? ".mjs" : ".js"));
  if (!existsSync(out)) throw new InputError(`dist/ is stale: ${rel.split(sep).join("/")} was not compiled`, { file: rel, fix: REBUILD });
  return out;
}

/** The project root: the nearest ancestor of this file that holds package.json. */
export function findProjectRoot(start: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, "package.json"))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${start}`);
    dir = up;
  }
}
