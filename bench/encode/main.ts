/**
 * Encoding throughput: onnxruntime-node (how the pipeline encodes) vs torch on the same model and
 * inputs, each at its best configuration, same run. The model is a BERT-like encoder exported here
 * (test/encoding/onnx/tiny_encoder.py; 2 layers, hidden 128, 2 heads, the mini reproduction's θ0
 * size), inputs of 128 real tokens (no padding, so trimming plays no part).
 *
 *   npx tsx bench/encode/main.ts [--rows 2048] [--batch 32] [--seq 128] [--repeats 3] [--quick]
 *   (--quick: 512 rows, 2 repeats)
 *
 * Configurations, threads swept over 1 .. the cores available: onnxruntime-node at each intra-op
 * thread count (graph optimisation "all", as steps/encoding/onnx/session.ts opens it); torch at
 * each thread count (OMP_NUM_THREADS and OPENBLAS_NUM_THREADS set to match, each in its own
 * process) in three modes: eager under
 * no_grad, inference_mode, and TorchScript (trace + freeze). Each configuration runs `--repeats`
 * times, alternating engines; its median is compared, and the best of each engine.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { writeNpy } from "../../steps/lib/npy.ts";
import { tokenMatrixFromNpy } from "../../steps/encoding/onnx/batch.ts";
import { encodeRows } from "../../steps/encoding/onnx/encode.ts";
import { openEncoder } from "../../steps/encoding/onnx/session.ts";
import { median } from "../engine/stats.ts";

const { values } = parseArgs({
  options: {
    rows: { type: "string" },
    batch: { type: "string", default: "32" },
    seq: { type: "string", default: "128" },
    repeats: { type: "string" },
    quick: { type: "boolean", default: false },
  },
});
const rows = Number(values.rows ?? (values.quick ? 512 : 2048));
const batch = Number(values.batch);
const seq = Number(values.seq);
const repeats = Number(values.repeats ?? (values.quick ? 2 : 3));
/** The thread sweep: 1 .. every core the process may use. */
const THREADS = Array.from({ length: availableParallelism() }, (_, i) => i + 1);
const PY = "/usr/bin/python3";
const EXPORTER = fileURLToPath(new URL("../../test/encoding/onnx/tiny_encoder.py", import.meta.url));
const TORCH = fileURLToPath(new URL("./torch_encode.py", import.meta.url));
const MODEL = ["--vocab", "1000", "--hidden", "128", "--layers", "2", "--heads", "2", "--max-len", String(Math.max(512, seq)), "--seed", "0"];

const dir = mkdtempSync(join(tmpdir(), "cspipe-bench-encode-"));
try {
  const ids = new Int32Array(rows * seq);
  for (let i = 0; i < ids.length; i++) ids[i] = 1 + ((i * 7919) % 999);
  const idsFile = join(dir, "ids.npy");
  writeNpy(idsFile, { dtype: "int32", shape: [rows, seq], data: ids });
  const model = join(dir, "m.onnx");
  execFileSync(PY, [EXPORTER, "export", "--out", model, "--kind", "bert", ...MODEL], { stdio: ["ignore", "ignore", "ignore"] });
  console.log(`encode bench: ${rows} rows x ${seq} tokens, batch ${batch}, ${repeats} repeats; 2-layer hidden-128 BERT-like encoder; ${availableParallelism()} cores`);

  const tokens = tokenMatrixFromNpy({ dtype: "int32", shape: [rows, seq], data: ids });
  const results = new Map<string, number[]>();
  const push = (name: string, v: number) => results.set(name, [...(results.get(name) ?? []), v]);
  let torchVersion = "";
  for (let r = 0; r < repeats; r++) {
    for (const threads of THREADS) {
      const enc = await openEncoder(model, { intraOpThreads: threads, providers: "cpu" });
      await encodeRows(enc.session, tokens, { start: 0, end: Math.min(rows, batch) }, { batchSize: batch }); // warm-up
      const t0 = performance.now();
      await encodeRows(enc.session, tokens, { start: 0, end: rows }, { batchSize: batch });
      push(`onnxruntime-node, ${threads} thread(s)`, rows / ((performance.now() - t0) / 1000));
      await enc.session.release();
      for (const mode of ["eager", "inference", "jit"]) {
        const env = { ...process.env, PYTHONPATH: dirname(EXPORTER), OMP_NUM_THREADS: String(threads), OPENBLAS_NUM_THREADS: String(threads) };
        const out = spawnSync(PY, [TORCH, "--ids", idsFile, "--batch", String(batch), "--threads", String(threads), "--mode", mode, ...MODEL], { encoding: "utf8", env });
        if (out.status !== 0) throw new Error(`torch ${mode} failed: ${out.stderr}`);
        const j = JSON.parse(out.stdout.trim().split("\n").at(-1)!) as { seq_per_s: number; torch: string };
        torchVersion = j.torch;
        push(`torch ${torchVersion}, ${mode}, ${threads} thread(s)`, j.seq_per_s);
      }
    }
    console.log(`  repeat ${r + 1}/${repeats} done`);
  }
  const rowsOut = [...results].map(([name, v]) => ({ name, med: median(v), min: Math.min(...v), max: Math.max(...v) }));
  const bestOf = (prefix: string) => rowsOut.filter((x) => x.name.startsWith(prefix)).sort((a, b) => b.med - a.med)[0]!;
  const ort = bestOf("onnxruntime");
  const torch = bestOf("torch");
  console.log("\n| engine, configuration | seq/s (median) | min | max | vs best torch |");
  console.log("|---|---:|---:|---:|---:|");
  for (const x of rowsOut) console.log(`| ${x.name} | ${x.med.toFixed(0)} | ${x.min.toFixed(0)} | ${x.max.toFixed(0)} | ${(x.med / torch.med).toFixed(2)}x |`);
  console.log(`\nbest onnxruntime-node: ${ort.name} ${ort.med.toFixed(0)} seq/s; best torch: ${torch.name} ${torch.med.toFixed(0)} seq/s`);
  console.log(`onnxruntime-node / torch, each at its best: ${(ort.med / torch.med).toFixed(2)}x (goal >= 3x: ${ort.med / torch.med >= 3 ? "MET" : "NOT MET"})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
