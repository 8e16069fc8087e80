/**
 * The `cspipe` command (`./cspipe` at the repository root; package.json's `bin`): runs the CLI
 * compiled by scripts/build.mjs, and compiles it first when the sources changed since the last
 * build, so the command users type starts as fast as `node dist/pipeline/main.js` without a
 * manual `npm run build`. Keys are the same either way (a compiled module is fingerprinted as
 * the .ts source it was built from; pipeline/engine/sources.ts).
 *
 * Builds are immutable directories `.cspipe/builds/<id>/` (CSPIPE_BUILDS_DIR overrides), where
 * <id> is a digest of every source the build reads (pipeline/, steps/, bench/engine/, the
 * builder itself) and of the vendored packages' versions. A build is written to a temporary
 * directory and renamed into place, so two commands that start at once either both build and
 * one rename wins (the other uses the winner's identical build) or the second finds the first's;
 * a running command keeps using its own build while a newer one appears. `current.json` records
 * the last build's id with each source's size and mtime: when none changed, no source is read.
 * When they did, the sources are hashed and a build with that digest is reused or made.
 *
 * A build holds the CLI twice: per file, and bundled into a few files (scripts/bundle.mjs: the
 * same modules under the same import.meta.url, so the same keys; loading ~370 modules one by one
 * was a third of a no-op rerun). The bundle runs, except with CSPIPE_LAUNCH=modules or a
 * CSPIPE_DEFINITIONS module (compiledEntry).
 *
 * It runs the sources under tsx instead (as `npx tsx pipeline/main.ts` does) when the build
 * fails (the reason is printed), when CSPIPE_DEFINITIONS names a module outside the built
 * folders, or when CSPIPE_LAUNCH=tsx.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DEFAULT_DIRS, DEFAULT_VENDOR, MANIFEST_NAME, build, digest, sourceFiles, vendorVersions } from "./build.mjs";
import { BUNDLE_MAIN } from "./bundle.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The scripts a build is made by, under the names the stamps and the build id give them. */
const BUILDERS = new Map([
  [fileURLToPath(new URL("./build.mjs", import.meta.url)), "<builder>"],
  [fileURLToPath(new URL("./bundle.mjs", import.meta.url)), "<bundler>"],
]);
const CURRENT = "current.json";
/** Builds other than the current one are kept this long (a long run may still load modules from its build). */
const KEEP_MS = 7 * 24 * 3600 * 1000;
const KEEP_NEWEST = 3;

const relPath = (root, p) => relative(root, p).split(sep).join("/");

function readCurrent(buildsDir) {
  try {
    const c = JSON.parse(readFileSync(join(buildsDir, CURRENT), "utf8"));
    return c && c.format === 1 && typeof c.id === "string" ? c : undefined;
  } catch {
    return undefined;
  }
}

function writeCurrent(buildsDir, current) {
  const tmp = join(buildsDir, `.${CURRENT}.${process.pid}.${randomBytes(4).toString("hex")}`);
  writeFileSync(tmp, `${JSON.stringify(current)}\n`);
  renameSync(tmp, join(buildsDir, CURRENT));
}

/** The name a build's file has in its stamp and id. */
const stampName = (root, f) => BUILDERS.get(f) ?? relPath(root, f);

/** The files a build reads, with their size and mtime; `scripts/build.mjs` and `scripts/bundle.mjs` are among them. */
function stampSources(root, dirs) {
  const files = [...sourceFiles(root, dirs), ...BUILDERS.keys()];
  const stamp = {};
  for (const f of files) {
    const s = statSync(f);
    stamp[stampName(root, f)] = [s.size, s.mtimeMs];
  }
  return { files, stamp };
}

function sameStamp(a, b) {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    const x = a[k];
    const y = b[k];
    if (!y || x[0] !== y[0] || x[1] !== y[1]) return false;
  }
  return true;
}

const sameRecord = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** Digest of everything a build depends on. */
function buildId(root, files, vendor) {
  const parts = files.map((f) => [stampName(root, f), digest(readFileSync(f, "utf8"))]);
  parts.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  return digest(JSON.stringify({ format: 1, files: parts, vendor })).slice(0, 24);
}

/** Removes stale temporary directories and builds unused for a week (keeping the newest few). */
function prune(buildsDir, keepId) {
  const now = Date.now();
  const builds = [];
  for (const name of readdirSync(buildsDir)) {
    const p = join(buildsDir, name);
    let mtime;
    try {
      mtime = statSync(p).mtimeMs;
    } catch {
      continue;
    }
    if (name.startsWith(".tmp-")) {
      if (now - mtime > 3600 * 1000) rmSync(p, { recursive: true, force: true });
    } else if (name !== keepId && name !== CURRENT && !name.startsWith(".")) {
      builds.push({ p, mtime });
    }
  }
  builds.sort((a, b) => b.mtime - a.mtime);
  for (const b of builds.slice(KEEP_NEWEST)) if (now - b.mtime > KEEP_MS) rmSync(b.p, { recursive: true, force: true });
}

/**
 * A compiled build of the current sources: reused when one exists, else made. Returns its
 * directory (holding pipeline/main.js), its id, and whether this call compiled it.
 */
export async function ensureBuild({ root = ROOT, dirs = DEFAULT_DIRS, vendor = DEFAULT_VENDOR, buildsDir = join(root, ".cspipe", "builds") } = {}) {
  const versions = vendorVersions(root, vendor);
  const { files, stamp } = stampSources(root, dirs);
  const current = readCurrent(buildsDir);
  if (current && sameRecord(current.dirs, dirs) && sameRecord(current.vendor, versions) && sameStamp(current.stamp, stamp)) {
    const dir = join(buildsDir, current.id);
    if (existsSync(join(dir, MANIFEST_NAME))) return { dir, id: current.id, built: false, seconds: 0 };
  }
  const id = buildId(root, files, versions);
  const dir = join(buildsDir, id);
  let built = false;
  let seconds = 0;
  if (!existsSync(join(dir, MANIFEST_NAME))) {
    mkdirSync(buildsDir, { recursive: true });
    const tmp = join(buildsDir, `.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
    try {
      seconds = (await build({ root, outDir: tmp, dirs, vendor, bundle: true })).seconds;
      try {
        renameSync(tmp, dir);
        built = true;
      } catch (e) {
        // Another command renamed the same build into place first: use that one.
        if (!existsSync(join(dir, MANIFEST_NAME))) throw e;
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  writeCurrent(buildsDir, { format: 1, id, dirs, vendor: versions, stamp });
  if (built) prune(buildsDir, id);
  return { dir, id, built, seconds };
}

/** Why the sources must run under tsx instead of a build, or undefined. */
function sourcesReason(env, root, dirs) {
  if (env.CSPIPE_LAUNCH === "tsx") return "CSPIPE_LAUNCH=tsx";
  const defs = env.CSPIPE_DEFINITIONS;
  if (defs) {
    const r = relPath(root, resolve(defs));
    if (!dirs.some((d) => r === d || r.startsWith(`${d}/`))) return `CSPIPE_DEFINITIONS (${defs}) is outside the compiled folders (${dirs.join(", ")})`;
  }
  return undefined;
}

/**
 * The module of a build that the command runs: the bundled CLI (scripts/bundle.mjs), or its
 * per-file modules with CSPIPE_LAUNCH=modules or when CSPIPE_DEFINITIONS names a definitions
 * module (that module and what it imports load per file, and the engine must be one copy: the
 * per-file one), or for a build without a bundle.
 */
export function compiledEntry(env, dir) {
  const modules = env.CSPIPE_LAUNCH === "modules" || Boolean(env.CSPIPE_DEFINITIONS) || !existsSync(join(dir, BUNDLE_MAIN));
  return join(dir, modules ? "pipeline/main.js" : BUNDLE_MAIN);
}

async function runSources(root) {
  const api = await import("tsx/esm/api");
  api.register();
  await import(pathToFileURL(join(root, "pipeline", "main.ts")).href);
}

/** Entry point of ./cspipe: the compiled CLI, built or rebuilt as needed, else the sources. */
export async function launch() {
  // Phase marks for bench/engine's breakdown (pipeline/engine/phases.ts): the launcher's start and its build check.
  const mark = (name) => performance.mark(`cspipe:${name}`, { detail: (process.cpuUsage().user + process.cpuUsage().system) / 1000 });
  mark("launcher-start");
  const env = process.env;
  if (sourcesReason(env, ROOT, DEFAULT_DIRS) === undefined) {
    let b;
    try {
      b = await ensureBuild({ root: ROOT, ...(env.CSPIPE_BUILDS_DIR ? { buildsDir: resolve(env.CSPIPE_BUILDS_DIR) } : {}) });
    } catch (e) {
      process.stderr.write(`cspipe: could not compile the sources (${e instanceof Error ? e.message.split("\n")[0] : String(e)}); running them with tsx\n`);
    }
    if (b) {
      mark("launcher");
      if (b.built) process.stderr.write(`cspipe: sources changed; compiled them in ${b.seconds.toFixed(1)} s (${relPath(ROOT, b.dir)})\n`);
      await import(pathToFileURL(compiledEntry(env, b.dir)).href);
      return;
    }
  }
  await runSources(ROOT);
}
