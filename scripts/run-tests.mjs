#!/usr/bin/env node
// Runs every test/**/*.test.ts file through node:test with tsx.
// Node 20's `--test <dir>` does not expand TypeScript files, so the files are listed here.
// Usage: node scripts/run-tests.mjs [substring filters...]
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { spawnSync } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith(".test.ts")) out.push(relative(root, p));
  }
  return out;
}
const filters = process.argv.slice(2);
// The end-to-end files first: they are the longest (report-smoke then table5-smoke, ~12 min on
// 2 cores), and node runs files in the order given, so the others fill the second slot meanwhile
// instead of leaving the end-to-end run alone at the end.
const longestFirst = (f) => (f.startsWith("test/e2e/") ? 0 : 1);
const files = walk(join(root, "test"))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort((a, b) => longestFirst(a) - longestFirst(b) || (a < b ? -1 : a > b ? 1 : 0));
if (files.length === 0) {
  console.error("run-tests: no test files matched");
  process.exit(1);
}
// The Slurm executor's tests run against a real cluster. Without one named by SLURM_CONF, a
// throwaway cluster on this host (scripts/slurm-cluster.sh; setup.sh installs its packages) is
// brought up for them and down afterwards, so `npm test` needs nothing started by hand.
function slurmCluster() {
  if (process.env.SLURM_CONF || !files.some((f) => f.includes("slurm"))) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "cspipe-slurm-test-"));
  const up = spawnSync("bash", [join(root, "scripts/slurm-cluster.sh"), "up", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const conf = /export SLURM_CONF=(\S+)/.exec(up.stdout ?? "")?.[1];
  if (up.status !== 0 || conf === undefined) {
    console.error(`run-tests: could not start the Slurm test cluster in ${dir} (exit ${up.status}); the Slurm tests will say what is missing. Fix: run scripts/setup.sh as root (it installs slurm-wlm, munge, slurmdbd, mariadb-server)`);
    return { dir, env: {} };
  }
  return { dir, env: { SLURM_CONF: conf } };
}

const cluster = slurmCluster();
const down = () => {
  if (cluster === undefined) return;
  spawnSync("bash", [join(root, "scripts/slurm-cluster.sh"), "down", cluster.dir], { stdio: "inherit" });
  rmSync(cluster.dir, { recursive: true, force: true });
};
// Most files share a process with others: each node + tsx process costs ~1.2 CPU-s before its first
// test (measured: test/engine's 37 such files, 102 CPU-s one process each, 57 in one; the whole
// suite's wall time in CI did not move, README "Tests"). A file keeps a process of its own where sharing one
// would change what it tests: hooks at its top level (they would apply to the other files' tests),
// writes to process-wide state (the environment, the working directory), or a long run that
// should hold a slot alone (the end-to-end files).
const OWN_PROCESS = {
  topLevelHooks: /^(before|after|beforeEach|afterEach)\(/m,
  processWideState: /process\.env\[[^\]]+\]\s*=[^=]|process\.env\.\w+\s*=[^=]|delete process\.env|process\.chdir\(/,
};
const ownProcess = (f) => f.startsWith("test/e2e/") || Object.values(OWN_PROCESS).some((re) => re.test(readFileSync(join(root, f), "utf8")));
const groupsDir = mkdtempSync(join(tmpdir(), "cspipe-test-groups-"));
const cleanUp = () => { down(); rmSync(groupsDir, { recursive: true, force: true }); };
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => { cleanUp(); process.exit(sig === "SIGINT" ? 130 : 143); });
/** The shared files in groups of about `size`, in order, each as one generated module importing them. */
function grouped(shared, size) {
  const count = Math.max(1, Math.round(shared.length / size));
  const out = [];
  for (let g = 0; g < count; g++) {
    const part = shared.slice(Math.floor((g * shared.length) / count), Math.floor(((g + 1) * shared.length) / count));
    if (part.length === 0) continue;
    const path = join(groupsDir, `group-${String(g + 1).padStart(2, "0")}.mjs`);
    writeFileSync(path, `// ${part.length} test files run in one process by scripts/run-tests.mjs\n${part.map((f) => `import ${JSON.stringify(pathToFileURL(join(root, f)).href)};`).join("\n")}\n`);
    out.push(path);
  }
  return out;
}
const alone = files.filter(ownProcess);
const groupSize = Number(process.env.CSPIPE_TEST_GROUP_SIZE ?? "16");
const shared = files.filter((f) => !ownProcess(f));
const entries = [...alone, ...(groupSize > 1 ? grouped(shared, groupSize) : shared)];
const concurrency = process.env.CSPIPE_TEST_CONCURRENCY ?? "2";
const r = spawnSync(process.execPath, ["--import", "tsx", "--test", `--test-concurrency=${concurrency}`, ...entries], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, ...(cluster?.env ?? {}) },
});
cleanUp();
process.exit(r.status ?? 1);
