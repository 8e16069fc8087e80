/**
 * The probe and the identity on real answers: torch 2.11 (pip wheel, CUDA 13.0) on an H200 machine and
 * Debian's torch 1.13 (fixtures under test/fixtures/numerics, copied from those machines on 2026-11-29).
 * Pip wheels link MKL into torch itself, so no BLAS library shows in the process: the probe reads it from
 * torch's build configuration instead, and the identity names it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PYTHON } from "../training/python.ts";
import { parseProbe } from "../../pipeline/executors/numerics/probe.ts";
import { programNumerics } from "../../pipeline/executors/numerics/identity.ts";
import { describeNumerics } from "../../pipeline/engine/numerics-words.ts";

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/numerics/${name}`, import.meta.url));
const PROBE_DIR = fileURLToPath(new URL("../../pipeline/executors/numerics", import.meta.url));

function staticBlas(configFile: string): unknown {
  const code = "import json, sys, probe_interpreter as p; print(json.dumps(p.static_blas(sys.stdin.read())))";
  const r = spawnSync(PYTHON, ["-c", code], { input: readFileSync(configFile, "utf8"), encoding: "utf8", env: { ...process.env, PYTHONPATH: PROBE_DIR } });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test("the BLAS linked into torch: MKL's version line from a pip wheel's build configuration; none from Debian's (its OpenBLAS is a shared library)", () => {
  assert.deepEqual(staticBlas(fixture("torch-2.11.0+cu130-config.txt")), {
    kind: "mkl",
    config: "Intel(R) oneAPI Math Kernel Library Version 2024.2-Product Build 20240605 for Intel(R) 64 architecture applications (linked into torch)",
  });
  assert.equal(staticBlas(fixture("torch-1.13.0a0-debian-config.txt")), null);
});

test("the H200 machine's answer: a CUDA step's identity names the GPU, CUDA and cuDNN, and differs from the same machine's CPU identity", () => {
  const facts = parseProbe("python3", { status: 0, stderr: "", stdout: readFileSync(fixture("probe-h200-torch-2.11.json"), "utf8") });
  const cpu = { arch: "x64", model: "Intel(R) Xeon(R) Processor", flags: ["avx2", "fma", "avx512f"] };
  const base = { facts, modules: ["numpy", "torch"], mode: "pinned" as const, pinned: true, threads: 1, cpu, choices: {} };
  const cuda = programNumerics({ ...base, cuda: true });
  const f = cuda as Record<string, unknown>;
  assert.deepEqual([f.device, f.gpus, f.cuda, f.cudnn], ["cuda", ["NVIDIA H200"], "13.0", 91900]);
  assert.equal(describeNumerics(cuda).split(", pinned")[0], "CUDA on NVIDIA H200 (CUDA 13.0, cuDNN 91900)");
  assert.notDeepEqual(programNumerics({ ...base, cuda: false }), cuda);
});
