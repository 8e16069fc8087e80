#!/usr/bin/env node
// Runs every test/**/*.test.ts file through node:test with tsx.
// Node 20's `--test <dir>` does not expand TypeScript files, so the files are listed here.
// Usage: node scripts/run-tests.mjs [substring filters...]
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
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
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => { down(); process.exit(sig === "SIGINT" ? 130 : 143); });
const concurrency = process.env.CSPIPE_TEST_CONCURRENCY ?? "2";
const r = spawnSync(process.execPath, ["--import", "tsx", "--test", `--test-concurrency=${concurrency}`, ...files], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, ...(cluster?.env ?? {}) },
});
down();
process.exit(r.status ?? 1);
