/**
 * Encoding throughput: onnxruntime-node vs the same model in torch (CPU), same inputs, same run.
 * The model is a BERT-like encoder exported here (test/encoding/onnx/tiny_encoder.py):
 * 2 layers, hidden 128, 2 heads, inputs of 128 real tokens (no padding, so trimming plays no part).
 *
 *   npx tsx bench/dense/encode-throughput.ts [--rows 2048] [--batch 32] [--threads 1] [--seq 128]
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { writeNpy } from "../../steps/lib/npy.ts";
import { tokenMatrixFromNpy } from "../../steps/encoding/onnx/batch.ts";
import { encodeRows } from "../../steps/encoding/onnx/encode.ts";
import { openEncoder } from "../../steps/encoding/onnx/session.ts";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "2048" },
    batch: { type: "string", default: "32" },
    threads: { type: "string", default: "1" },
    seq: { type: "string", default: "128" },
  },
});
const rows = Number(values.rows);
const batch = Number(values.batch);
const threads = Number(values.threads);
const seq = Number(values.seq);
const PY = "/usr/bin/python3";
const script = fileURLToPath(new URL("../../test/encoding/onnx/tiny_encoder.py", import.meta.url));
const modelArgs = ["--kind", "bert", "--vocab", "1000", "--hidden", "128", "--layers", "2", "--heads", "2", "--max-len", String(Math.max(512, seq)), "--seed", "0"];

const dir = mkdtempSync(join(tmpdir(), "cspipe-bench-encode-"));
try {
  const ids = new Int32Array(rows * seq);
  for (let i = 0; i < ids.length; i++) ids[i] = 1 + ((i * 7919) % 999);
  writeNpy(join(dir, "ids.npy"), { dtype: "int32", shape: [rows, seq], data: ids });
  const model = join(dir, "m.onnx");
  execFileSync(PY, [script, "export", "--out", model, ...modelArgs], { stdio: ["ignore", "ignore", "ignore"] });

  console.log(`encode bench: ${rows} rows x ${seq} tokens, batch ${batch}, ${threads} threads; 2-layer hidden-128 BERT-like encoder`);
  const torchOut = execFileSync(
    PY,
    [script, "bench", "--out", model, ...modelArgs, "--ids", join(dir, "ids.npy"), "--batch", String(batch), "--threads", String(threads)],
    { encoding: "utf8", env: { ...process.env, OMP_NUM_THREADS: String(threads) } },
  );
  const torch = JSON.parse(torchOut.trim().split("\n").at(-1)!) as { seconds: number; seq_per_s: number; torch: string };

  const tokens = tokenMatrixFromNpy({ dtype: "int32", shape: [rows, seq], data: ids });
  const enc = await openEncoder(model, { intraOpThreads: threads, providers: "cpu" });
  await encodeRows(enc.session, tokens, { start: 0, end: Math.min(rows, batch) }, { batchSize: batch }); // warm-up
  const t0 = performance.now();
  await encodeRows(enc.session, tokens, { start: 0, end: rows }, { batchSize: batch });
  const ortS = (performance.now() - t0) / 1000;
  await enc.session.release();

  console.log("");
  console.log("| engine | seconds | seq/s | vs torch |");
  console.log("|---|---|---|---|");
  console.log(`| torch ${torch.torch} (CPU) | ${torch.seconds.toFixed(3)} | ${torch.seq_per_s.toFixed(0)} | 1.00x |`);
  console.log(`| onnxruntime-node (${enc.providers.join(",")}) | ${ortS.toFixed(3)} | ${(rows / ortS).toFixed(0)} | ${(rows / ortS / torch.seq_per_s).toFixed(2)}x |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
