/** The pure parts of numerics: pins, identities, their words, native packages, CPU facts, program environments. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseCpuinfo, runsAvx2Kernels } from "../../pipeline/engine/cpu.ts";
import { mlasKernels, nativeNumerics } from "../../pipeline/engine/native-numerics.ts";
import { kernelChoices, numericsEnv, numericsMode, stepThreads } from "../../pipeline/executors/numerics/pins.ts";
import { programNumerics } from "../../pipeline/executors/numerics/identity.ts";
import { describeNumerics, numericsGroups } from "../../pipeline/engine/numerics-words.ts";
import { parseProbe } from "../../pipeline/executors/numerics/probe.ts";
import { numericsMismatch } from "../../pipeline/executors/numerics/verify.ts";
import { programEnv } from "../../pipeline/executors/program-env.ts";
import { plainReporter } from "../../pipeline/reporters/plain.ts";

const EPYC = parseCpuinfo("processor\t: 0\nmodel name\t: AMD EPYC 9654\nflags\t\t: fpu sse4_2 avx avx2 fma f16c avx512f avx512bw\n\nprocessor\t: 1\nmodel name\t: other\n", "x64", "?");
const OLD = parseCpuinfo("model name\t: Intel(R) Xeon(R) CPU E5-2670\nflags\t\t: fpu sse4_2 avx\n", "x64", "?");
const FACTS = parseProbe("/usr/bin/python3", {
  status: 0,
  stderr: "",
  stdout: JSON.stringify({
    python: "3.11.2", executable: "/usr/bin/python3.11", machine: "x86_64", modules: { torch: "1.13.0a0", numpy: "1.24.2" }, errors: {}, files: [],
    torch: { version: "1.13.0a0", cuda: null, devices: 0, names: [], capability: "AVX2" },
    blas: { kind: "openblas", config: "OpenBLAS 0.3.21 DYNAMIC_ARCH Haswell", path: "/usr/lib/libblas.so.3" },
  }),
});

test("CPU facts: the first processor's model and the kernel-relevant flags, in a fixed order", () => {
  assert.deepEqual(EPYC, { arch: "x64", model: "AMD EPYC 9654", flags: ["sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw"] });
  assert.equal(runsAvx2Kernels(EPYC), true);
  assert.equal(runsAvx2Kernels(OLD), false);
  assert.equal(runsAvx2Kernels({ arch: "arm64", model: "Neoverse", flags: ["asimd"] }), false);
  assert.equal(parseCpuinfo("", "arm64", "Apple M2").model, "Apple M2");
});

test("pins: the kernel variables and thread counts, and the caller's influences dropped; host mode keeps them", () => {
  const pinned = numericsEnv("pinned", 2);
  assert.deepEqual(Object.fromEntries(Object.entries(pinned).filter(([, v]) => v !== undefined)), {
    OMP_NUM_THREADS: "2", OPENBLAS_NUM_THREADS: "2", MKL_NUM_THREADS: "2", CSPIPE_THREADS: "2",
    OPENBLAS_CORETYPE: "Haswell", ATEN_CPU_CAPABILITY: "avx2", ONEDNN_MAX_CPU_ISA: "AVX2", DNNL_MAX_CPU_ISA: "AVX2", MKL_CBWR: "AVX2", MKL_ENABLE_INSTRUCTIONS: "AVX2",
  });
  assert.ok("OPENBLAS_L2_SIZE" in pinned && pinned.OPENBLAS_L2_SIZE === undefined && pinned.CSPIPE_TORCH_THREADS === undefined);
  assert.deepEqual(numericsEnv("host", 1), { OMP_NUM_THREADS: "1", OPENBLAS_NUM_THREADS: "1", MKL_NUM_THREADS: "1", CSPIPE_THREADS: "1" });
  assert.deepEqual(kernelChoices({ OPENBLAS_CORETYPE: "Prescott", PATH: "/bin", CSPIPE_TORCH_THREADS: "4" }), { CSPIPE_TORCH_THREADS: "4", OPENBLAS_CORETYPE: "Prescott" });
  assert.equal(stepThreads({}), 1);
  assert.equal(stepThreads({ resources: { cpus: 4 } }), 4);
  assert.equal(numericsMode({}), "pinned");
  assert.equal(numericsMode({ CSPIPE_NUMERICS: "host" }), "host");
  assert.throws(() => numericsMode({ CSPIPE_NUMERICS: "Host" }), /must be 'pinned' or 'host', got 'Host'/);
});

test("a program's environment: inherited, the step's, then the fixed part; the pins win over the caller's", () => {
  const env = programEnv({
    inherited: { PATH: "/bin", OPENBLAS_CORETYPE: "Prescott", OPENBLAS_L2_SIZE: "512" },
    runtime: { type: "container", image: "x", argv: ["python3"], resources: { cpus: 3 } },
    settings: {},
    env: { HF_HUB_OFFLINE: "1" },
    secrets: { TOKEN: "s" },
    pinned: true,
    identity: { device: "cpu", threads: 3 },
  });
  assert.deepEqual([env.PATH, env.OPENBLAS_CORETYPE, env.OPENBLAS_L2_SIZE, env.OMP_NUM_THREADS, env.HF_HUB_OFFLINE, env.TOKEN, env.CSPIPE_DEVICE_HINT], ["/bin", "Haswell", undefined, "3", "1", "s", "auto"]);
  assert.equal(env.CSPIPE_NUMERICS_IDENTITY, '{"device":"cpu","threads":3}');
});

test("a program step's identity: pinned on CPU, the host's kernels, CUDA; and in words", () => {
  const base = { facts: FACTS, modules: ["torch", "numpy"], mode: "pinned" as const, threads: 1, cuda: false, cpu: EPYC, choices: {} };
  const pinned = programNumerics({ ...base, pinned: true });
  assert.deepEqual(pinned, { device: "cpu", kernels: "pinned-avx2", machine: "x86_64", python: "3.11.2", modules: { numpy: "1.24.2", torch: "1.13.0a0" }, threads: 1, blas: "OpenBLAS 0.3.21 DYNAMIC_ARCH Haswell", aten: "AVX2" });
  assert.equal(describeNumerics(pinned), "CPU x86_64, pinned AVX2 kernels (OpenBLAS 0.3.21 DYNAMIC_ARCH Haswell; ATen AVX2), 1 thread, Python 3.11.2, numpy 1.24.2, torch 1.13.0a0");
  // The host's kernels: the CPU and the caller's kernel variables are part of it.
  const host = programNumerics({ ...base, mode: "host", pinned: false, choices: { OPENBLAS_CORETYPE: "Prescott" } });
  const h = host as Record<string, unknown>;
  assert.deepEqual([h.kernels, h.cpu, h.env], ["host", { model: "AMD EPYC 9654", flags: EPYC.flags }, { OPENBLAS_CORETYPE: "Prescott" }]);
  assert.match(describeNumerics(host), /the host's kernels on AMD EPYC 9654 with OPENBLAS_CORETYPE=Prescott/);
  const gpu = { ...FACTS, torch: { ...FACTS.torch!, cuda: "13.0", cudnn: 91900, devices: 2, names: ["NVIDIA H200", "NVIDIA H200"] } };
  const cuda = programNumerics({ ...base, facts: gpu, pinned: true, cuda: true });
  const c = cuda as Record<string, unknown>;
  assert.deepEqual([c.device, c.gpus, c.cuda, c.cudnn], ["cuda", ["NVIDIA H200"], "13.0", 91900]);
  assert.match(describeNumerics(cuda), /^CUDA on NVIDIA H200 \(CUDA 13\.0, cuDNN 91900\), pinned AVX2 kernels/);
  // A module the interpreter lacks is named, so the key cannot pretend it was there.
  assert.deepEqual((programNumerics({ ...base, modules: ["sentencepiece"], pinned: true }) as { modules: unknown }).modules, { sentencepiece: "missing" });
});

test("in-process steps: numerics only for native numeric packages (onnxruntime's MLAS kernel family)", () => {
  assert.equal(nativeNumerics(["apache-arrow", "zod"], EPYC), null);
  assert.deepEqual(nativeNumerics(["onnxruntime-node", "zod"], EPYC), { device: "in-process", native: { "onnxruntime-node": { mlas: "avx512f", cudaProvider: false } } });
  assert.equal(mlasKernels({ arch: "x64", model: "", flags: ["avx", "avx2", "fma"] }), "fma3");
  assert.equal(mlasKernels(OLD), "avx");
  assert.equal(mlasKernels({ arch: "arm64", model: "", flags: [] }), "neon");
  assert.equal(describeNumerics(null), "JavaScript only (the same on every machine)");
});

test("numerics where a step runs against its key's: equal, or the differences and the fix", () => {
  assert.equal(numericsMismatch({ device: "cpu", threads: 1 }, { threads: 1, device: "cpu" }), undefined);
  assert.match(numericsMismatch({ device: "cpu", blas: "OpenBLAS Haswell" }, { device: "cpu", blas: "OpenBLAS Prescott" })!, /^this machine computes with other numerics than the step's key promises \(blas OpenBLAS Haswell -> OpenBLAS Prescott\)\. Fix: /);
});

test("the run says where its programs compute: one line per numerics, most steps first", () => {
  const a = { device: "cpu", kernels: "pinned-avx2", machine: "x86_64", python: "3.11.2", modules: {}, threads: 1, blas: null, aten: null };
  const groups = numericsGroups([a, { ...a, threads: 2 }, a]);
  assert.deepEqual(groups, [
    { description: "CPU x86_64, pinned AVX2 kernels, 1 thread, Python 3.11.2", steps: 2 },
    { description: "CPU x86_64, pinned AVX2 kernels, 2 threads, Python 3.11.2", steps: 1 },
  ]);
  const lines: string[] = [];
  plainReporter((l) => lines.push(l))({ type: "numerics", groups });
  assert.deepEqual(lines, ["numerics  2 program steps: CPU x86_64, pinned AVX2 kernels, 1 thread, Python 3.11.2", "numerics  1 program step: CPU x86_64, pinned AVX2 kernels, 2 threads, Python 3.11.2"]);
});
