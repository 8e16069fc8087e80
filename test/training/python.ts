/** Helpers for the training tests: run the Python trainer and build tiny synthetic inputs. */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeNpy } from "../../steps/lib/npy.ts";
import { pythonCommand } from "../../steps/pytrain/launch.ts";
import { TRAINER_MODULE } from "../../steps/training/contract.ts";
import { mulberry32 } from "../../steps/lib/prng.ts";

/** Deterministic PRNG for fixtures (the project's one mulberry32). */
export const rng = mulberry32;

export const PYTHON = process.env.CSPIPE_PYTHON ?? "/usr/bin/python3";
export const ROOT = new URL("../../", import.meta.url).pathname;

/** The interpreter's arguments that run a program module of the repository (steps/pytrain/launch.ts). */
export function program(module: string, args: readonly string[] = []): string[] {
  return pythonCommand(ROOT, module, args);
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runTrainer(args: string[], stdin = ""): RunResult {
  const r = spawnSync(PYTHON, program(TRAINER_MODULE, args), { input: stdin, encoding: "utf8", timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs the trainer's `--selftest <name>` with a JSON argument and returns its RESULT object. */
export function selftest<T>(name: string, arg: unknown): T {
  const r = runTrainer(["--selftest", name], JSON.stringify(arg));
  const line = r.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (r.status !== 0 || line === undefined) throw new Error(`selftest ${name} failed (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(line.slice(7)) as T;
}


/**
 * A learnable toy retrieval task: passage j and its queries share a key token (200 + j,
 * repeated 3 times) among random noise tokens 1..149. 64 train queries (passages 0..63),
 * 32 dev queries with fresh noise (passages 0..31), dev collection = the 128 passages.
 */
export function writeSyntheticInputs(dir: string, seed = 1): void {
  mkdirSync(dir, { recursive: true });
  const r = rng(seed);
  const NP = 128, NQ = 64, ND = 32, LQ = 16, LP = 32;
  const row = (out: Int32Array, offset: number, key: number, noise: number, width: number): void => {
    const toks = [101, key, key, key];
    for (let i = 0; i < noise; i++) toks.push(1 + Math.floor(r() * 149));
    toks.push(102);
    for (let i = 0; i < Math.min(width, toks.length); i++) out[offset + i] = toks[i]!;
  };
  const passages = new Int32Array(NP * LP);
  const types = new Int8Array(NP * LP);
  for (let j = 0; j < NP; j++) {
    row(passages, j * LP, 200 + j, 10 + (j % 15), LP);
    for (let c = 8; c < LP; c++) types[j * LP + c] = passages[j * LP + c] !== 0 ? 1 : 0;
  }
  const queries = new Int32Array(NQ * LQ);
  for (let j = 0; j < NQ; j++) row(queries, j * LQ, 200 + j, 3 + (j % 5), LQ);
  const dev = new Int32Array(ND * LQ);
  for (let j = 0; j < ND; j++) row(dev, j * LQ, 200 + j, 4, LQ);
  const pos = Int32Array.from({ length: NQ }, (_, j) => j);
  // Mined lists hold the gold passage itself (rank 6) and padding, like an unfiltered miner would.
  const neg = new Int32Array(NQ * 6);
  for (let j = 0; j < NQ; j++) neg.set([(j + 1) % NP, (j + 2) % NP, (j + 3) % NP, (j + 4) % NP, -1, j], j * 6);
  const gold = new Int32Array(ND * 2).fill(-1);
  for (let j = 0; j < ND; j++) gold[j * 2] = j;
  const w = (name: string, data: Int32Array | Int8Array, shape: number[]): void =>
    writeNpy(join(dir, name), { dtype: data instanceof Int8Array ? "int8" : "int32", shape, data });
  w("train_query_ids.npy", queries, [NQ, LQ]);
  w("passage_ids.npy", passages, [NP, LP]);
  w("passage_type_ids.npy", types, [NP, LP]);
  w("train_pos.npy", pos, [NQ]);
  w("train_neg.npy", neg, [NQ, 6]);
  w("dev_query_ids.npy", dev, [ND, LQ]);
  w("dev_passage_ids.npy", passages, [NP, LP]);
  w("dev_passage_type_ids.npy", types, [NP, LP]);
  w("dev_gold.npy", gold, [ND, 2]);
}

/** A small fast BERT for tests (no dropout so few epochs suffice). */
export const TEST_BERT = {
  vocab_size: 400,
  hidden_size: 64,
  num_hidden_layers: 2,
  num_attention_heads: 2,
  intermediate_size: 128,
  max_position_embeddings: 64,
  hidden_dropout_prob: 0,
  attention_probs_dropout_prob: 0,
};
