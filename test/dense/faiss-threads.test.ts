// steps/dense/backend.ts: faiss-node runs its OpenMP loops on one thread unless the user sets
// OMP_NUM_THREADS (bench/dense measured the default pools costing 2-4x the CPU on 2 cores), and
// the process environment is left as it was. Thread counts are read from /proc/self/task after a
// search in a child process: the default must create exactly the threads OMP_NUM_THREADS=1 does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { faissAvailability } from "../../steps/dense/backend.ts";
import { ROOT } from "../engine/helpers.ts";

const avail = faissAvailability();
const skip = avail.available ? false : `faiss-node unavailable: ${avail.reason}`;
const url = (p: string) => JSON.stringify(pathToFileURL(join(ROOT, p)).href);

const CHILD = `
import { readdirSync } from "node:fs";
const { faissAvailability } = await import(${url("steps/dense/backend.ts")});
const { buildFlatIP } = await import(${url("steps/dense/faiss-index.ts")});
const before = process.env.OMP_NUM_THREADS ?? null;
const available = faissAvailability().available;
const after = process.env.OMP_NUM_THREADS ?? null;
const dim = 16;
const v = Float32Array.from({ length: 4000 * dim }, (_, i) => ((i * 7919) % 1000) / 1000 - 0.5);
buildFlatIP(v, dim, { backend: "faiss" }).search(v.subarray(0, 64 * dim), 10);
console.log(JSON.stringify({ available, before, after, threads: readdirSync("/proc/self/task").length }));
`;

function child(omp: string | undefined): { available: boolean; before: string | null; after: string | null; threads: number } {
  const env: Record<string, string | undefined> = { ...process.env, OMP_NUM_THREADS: omp };
  if (omp === undefined) delete env.OMP_NUM_THREADS;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", CHILD], { encoding: "utf8", env, cwd: ROOT });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as ReturnType<typeof child>;
}

test("faiss's OpenMP pool is one thread by default, OMP_NUM_THREADS still rules, and the environment is restored", { skip }, () => {
  const byDefault = child(undefined);
  const one = child("1");
  const four = child("4");
  assert.deepEqual([byDefault.available, byDefault.before, byDefault.after], [true, null, null]);
  assert.deepEqual([four.before, four.after], ["4", "4"]);
  assert.equal(byDefault.threads, one.threads, "the default runs the threads OMP_NUM_THREADS=1 runs");
  assert.ok(four.threads > one.threads, `OMP_NUM_THREADS=4 adds OpenMP threads (${four.threads} vs ${one.threads})`);
});
