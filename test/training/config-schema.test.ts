/**
 * The trainer's config keys have one source (steps/training/config-schema.ts): the step
 * params, the TypeScript type and the Python trainer's checks all come from it. Also the
 * plateau rule (patience) and the environment record of a run.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { TRAINER_FIELDS } from "../../steps/training/config-schema.ts";
import { readTrainingResult, trainerArgv, trainingConfig, TRAINING_DEFAULTS } from "../../steps/training/contract.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { PYTHON, runTrainer, writeSyntheticInputs } from "./python.ts";
import { tempDir } from "../tmp.ts";

/** `python3 -c` from the Python source root: its modules import as the programs import them. */
const STEPS = new URL("../../steps", import.meta.url).pathname;

test("TypeScript and Python agree on every default, and refuse the same out-of-range values", () => {
  const py = spawnSync(PYTHON, ["-c", "import json\nfrom pytrain.config import defaults\nfrom training.dpr.config_schema import SCHEMA\nprint(json.dumps({k: v for k, v in defaults(SCHEMA).items() if k != 'init'}))"], { cwd: STEPS, encoding: "utf8" });
  assert.equal(py.status, 0, py.stderr);
  assert.deepEqual(JSON.parse(py.stdout), { ...TRAINING_DEFAULTS });
  const bad: [string, unknown][] = [["lr", 0], ["warmup_ratio", 1], ["epochs", -1], ["batch_size", 0], ["amp", "fp8"], ["patience", 1.5], ["deterministic", 1]];
  for (const [key, value] of bad) {
    assert.throws(() => trainingConfig({ [key]: value, init: { kind: "random" } } as never), (e: unknown) => e instanceof InputError && e.field === key, `TS refuses ${key}=${String(value)}`);
    const check = `from pytrain.config import validate_config\nfrom training.dpr.config_schema import SCHEMA\ntry:\n    validate_config({${JSON.stringify(key)}: ${JSON.stringify(value).replace("true", "True")}, "init": {"kind": "random"}}, SCHEMA)\nexcept Exception as e:\n    print(type(e).__name__, getattr(e, "field", None))\n`;
    const r = spawnSync(PYTHON, ["-c", check], { cwd: STEPS, encoding: "utf8" });
    assert.equal(r.stdout.trim(), `InputError ${key}`, `Python refuses ${key}=${String(value)}: ${r.stderr}`);
  }
  assert.ok(Object.keys(TRAINER_FIELDS).length >= 25);
});

test("patience stops a training whose dev recall stopped rising, and the result says so; the environment and the seconds are logged, not written", () => {
  const dir = tempDir("trainer-plateau-");
  const inputs = join(dir, "in");
  writeSyntheticInputs(inputs);
  const cfg = join(dir, "cfg.json");
  // lr 1e-9: the weights barely move, so dev recall is flat from epoch 1 on
  writeFileSync(cfg, JSON.stringify(trainingConfig({ lr: 1e-9, epochs: 10, patience: 2, min_delta: 0.01, batch_size: 32, n_hard_negatives: 0, eval_before_training: false, export_onnx: false, save_checkpoint: false, parity_check_transformers: false, init: { kind: "random", bert_config: { hidden_size: 32, num_hidden_layers: 1, num_attention_heads: 2, intermediate_size: 64 } } })));
  const out = join(dir, "out");
  const r = runTrainer(trainerArgv(cfg, inputs, out));
  assert.equal(r.status, 0, r.stderr);
  const result = readTrainingResult(out);
  assert.equal(result["epochs_run"], 3);
  assert.equal(result["stopped_early"], true);
  assert.deepEqual(Object.keys(result.dev_recall_per_epoch), ["1", "2", "3"]);
  assert.deepEqual(result["plateau"], { window: 2, epochs: 3, best_before: result.dev_recall_per_epoch["1"], best_within: result.dev_recall_per_epoch["1"], gain: 0 });
  // How the run went (its seconds, the machine) is in the log, not in the outputs, whose bytes the key promises.
  for (const key of ["seconds", "environment"]) assert.ok(!(key in result), `result.json holds no ${key}`);
  assert.doesNotMatch(readFileSync(join(out, "metrics.jsonl"), "utf8"), /seconds/);
  assert.match(r.stderr, /done: best epoch 1, .*, [0-9.]+ s\n/);
  const env = JSON.parse(/ran on: (\{.*\})\n/.exec(r.stderr)?.[1] ?? "null") as Record<string, unknown>;
  for (const key of ["torch", "numpy", "cpu_model", "cpu_flags", "torch_threads", "deterministic_algorithms"]) assert.ok(key in env, `environment records ${key}`);
  assert.equal(env["deterministic_algorithms"], true);
  assert.match(r.stderr, /plateau: no dev R@5 gain of 0\.01 or more since epoch 1; stopping after epoch 3 of 10/);
});

test("select: best keeps the best dev score's epoch (copying its weights), last keeps the last (no copy); last with patience is refused in TypeScript and Python", () => {
  const py = [
    "import json",
    "from pytrain.selection import BestEpoch, LastEpoch",
    "from pytrain.errors import InputError",
    "from training.dpr.trainer import recall_selector",
    "out = {}",
    "for name, sel in (('best', BestEpoch()), ('last', LastEpoch())):",
    "    verdicts = [sel.observe(e, s) for e, s in enumerate([0.5, 0.7, 0.6], 1)]",
    "    out[name] = [sel.best_epoch, sel.best_score, [list(v) for v in verdicts]]",
    "from types import SimpleNamespace",
    "from pytrain.loop import Loop",
    "out['copies'] = [Loop(SimpleNamespace(models=[]), None, sel, None, 'cpu').keeper is not None for sel in (BestEpoch(), LastEpoch())]",
    "try:",
    "    recall_selector({'select': 'last', 'patience': 2, 'min_delta': 0, 'recall_k': 5})",
    "except InputError as e:",
    "    out['error'] = [e.field, str(e)]",
    "print(json.dumps(out))",
  ].join("\n");
  const r = spawnSync(PYTHON, ["-c", py], { cwd: STEPS, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as Record<string, unknown>;
  assert.deepEqual(out["best"], [2, 0.7, [[true, false], [true, false], [false, false]]]);
  assert.deepEqual(out["last"], [3, 0.6, [[true, false], [true, false], [true, false]]]);
  assert.deepEqual(out["copies"], [true, false], "only best copies each kept epoch's weights; last ends with them");
  assert.equal((out["error"] as string[])[0], "patience");
  assert.match((out["error"] as string[])[1]!, /select 'last' keeps the last epoch, but patience 2/);
  assert.throws(() => trainingConfig({ select: "last", patience: 2, init: { kind: "random" } }), (e: unknown) => e instanceof InputError && e.field === "patience");
  assert.equal(trainingConfig({ select: "last", init: { kind: "random" } }).select, "last");
});

test("eval_every: dev recall after every n-th epoch and the last; only those epochs are kept", () => {
  const dir = tempDir("trainer-eval-every-");
  const inputs = join(dir, "in");
  writeSyntheticInputs(inputs);
  const cfg = join(dir, "cfg.json");
  writeFileSync(cfg, JSON.stringify(trainingConfig({ epochs: 5, eval_every: 2, select: "best", batch_size: 32, n_hard_negatives: 0, eval_before_training: false, export_onnx: false, save_checkpoint: false, parity_check_transformers: false, init: { kind: "random", bert_config: { hidden_size: 32, num_hidden_layers: 1, num_attention_heads: 2, intermediate_size: 64 } } })));
  const out = join(dir, "out");
  const r = runTrainer(trainerArgv(cfg, inputs, out));
  assert.equal(r.status, 0, r.stderr);
  const result = readTrainingResult(out);
  assert.deepEqual(Object.keys(result.dev_recall_per_epoch).sort(), ["2", "4", "5"]);
  assert.ok([2, 4, 5].includes(result["best_epoch"] as number));
  assert.equal(result["epochs_run"], 5);
});
