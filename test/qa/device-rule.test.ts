/**
 * The readers and the DCSR trainer pick their device by the trainers' one rule (steps/pytrain/run.py): a
 * step that requires a GPU (CSPIPE_DEVICE_HINT=cuda-required) fails at once where torch sees
 * none (CI's CPU-only torch), instead of training on CPU; `--allow-cpu` (hint cpu-allowed) runs.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PYTHON, program } from "./python.ts";

const PROGRAMS: readonly (readonly [string, readonly string[], unknown])[] = [
  ["DPR reader", program("qa.dpr_reader.train_reader"), { epochs: 1, init: { kind: "random", bert_config: { hidden_size: 16, num_hidden_layers: 1, num_attention_heads: 2, intermediate_size: 32 } } }],
  ["FiD", program("qa.fid.fid", ["train"]), { epochs: 1, init: { kind: "random", t5_config: { d_model: 16, d_kv: 8, d_ff: 32, num_layers: 1, num_heads: 2, dropout_rate: 0 } } }],
  ["DCSR", program("dcsr.python.train_dcsr", ["--passages", "/nonexistent"]), { epochs: 1, init: { kind: "random", bert_config: { hidden_size: 16, num_hidden_layers: 1, num_attention_heads: 2, intermediate_size: 32, vocab_size: 64 } } }],
];

test("the DPR reader, FiD and the DCSR trainer refuse to train on CPU when their step requires a GPU", () => {
  const dir = mkdtempSync(join(tmpdir(), "cspipe-qa-device-"));
  try {
    for (const [name, argv, config] of PROGRAMS) {
      const cfg = join(dir, "cfg.json");
      writeFileSync(cfg, JSON.stringify(config));
      const r = spawnSync(PYTHON, [...argv, "--config", cfg, "--inputs", join(dir, "missing"), "--out", join(dir, "out")], { encoding: "utf8", timeout: 120_000, env: { ...process.env, CSPIPE_DEVICE_HINT: "cuda-required", CUDA_VISIBLE_DEVICES: "" } });
      assert.equal(r.status, 2, `${name}: ${r.stderr}`);
      assert.match(r.stderr, /error: .*a GPU is required but torch \S+ at \S+ \(.*\) sees no CUDA device.* Fix: .*--allow-cpu/, name);
      // Without the hint the same call gets past the device and stops at the missing inputs.
      const plain = spawnSync(PYTHON, [...argv, "--config", cfg, "--inputs", join(dir, "missing"), "--out", join(dir, "out")], { encoding: "utf8", timeout: 120_000, env: { ...process.env, CSPIPE_DEVICE_HINT: "cpu-allowed", CUDA_VISIBLE_DEVICES: "" } });
      assert.notEqual(plain.status, 0, name);
      assert.doesNotMatch(plain.stderr, /a GPU is required/, name);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
