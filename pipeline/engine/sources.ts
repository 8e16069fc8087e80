/**
 * The source component of a cache key: the import closure of the module that defines a
 * step, each file hashed by content, plus the versions of the npm packages it imports.
 * Editing a helper invalidates exactly the steps whose closure contains it.
 *
 * Imports are found with a deliberately small scanner (static `import`/`export ... from`,
 * side-effect imports and `import("literal")`); `import type` lines are skipped because
 * they cannot change behaviour. Node builtins are not hashed.
 */
import { readFileSync, existsSync, statSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { sha256Hex } from "./canonical.ts";

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

const IMPORT_FROM = /^[ \t]*(import|export)\s+(type\s+)?(?:[^;'"]*?)\s*from\s*["']([^"']+)["']/gm;
const SIDE_EFFECT = /^[ \t]*import\s*["']([^"']+)["']/gm;
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;
const EXTENSIONS = ["", ".ts", ".tsx", ".mts", ".js", ".mjs", "/index.ts", "/index.js"];

export class SourceScanner {
  private readonly modules = new Map<string, ModuleInfo>();
  private readonly packageVersions = new Map<string, string>();
  private readonly closures = new Map<string, SourceFingerprint>();

  constructor(readonly root: string) {}

  /** Fingerprint of a module (file URL or absolute path) and extra project-relative sources. */
  fingerprint(entry: string, extraSources: readonly string[] = []): SourceFingerprint {
    const entryPath = entry.startsWith("file:") ? fileURLToPath(entry) : resolve(entry);
    const cacheKey = `${entryPath}\0${extraSources.join("\0")}`;
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
      files[this.rel(path)] = info.digest;
      for (const dep of info.localDeps) stack.push(dep);
      for (const pkg of info.packages) packages[pkg] = this.packageVersion(pkg);
    }
    for (const extra of extraSources) {
      for (const path of this.expand(resolve(this.root, extra))) files[this.rel(path)] = sha256Hex(readFileSync(path));
    }
    const fp = { files: sortRecord(files), packages: sortRecord(packages) };
    this.closures.set(cacheKey, fp);
    return fp;
  }

  private rel(path: string): string {
    return relative(this.root, path).split(sep).join("/");
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
    const text = readFileSync(path, "utf8");
    const specs = new Set<string>();
    for (const m of text.matchAll(IMPORT_FROM)) if (!m[2]) specs.add(m[3]!);
    for (const m of text.matchAll(SIDE_EFFECT)) specs.add(m[1]!);
    for (const m of text.matchAll(DYNAMIC)) specs.add(m[1]!);
    const localDeps: string[] = [];
    const packages: string[] = [];
    for (const spec of [...specs].sort()) {
      if (spec.startsWith("node:")) continue;
      if (spec.startsWith(".") || spec.startsWith("/")) {
        localDeps.push(this.resolveLocal(path, spec));
      } else {
        const pkg = packageName(spec);
        if (!isBuiltin(pkg)) packages.push(pkg);
      }
    }
    const info = { digest: sha256Hex(text), localDeps, packages };
    this.modules.set(path, info);
    return info;
  }

  private resolveLocal(from: string, spec: string): string {
    const base = resolve(dirname(from), spec);
    for (const ext of EXTENSIONS) {
      const candidate = base + ext;
      if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    }
    throw new Error(`${this.rel(from)}: cannot resolve import '${spec}'`);
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
