/** The DCSR trainer's config keys have one source (steps/dcsr/config-schema.ts), shared keys the DPR trainer's. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { z } from "zod";
import { DCSR_TRAINER_FIELDS, dcsrParamsShape } from "../../steps/dcsr/config-schema.ts";
import { TRAINER_FIELDS } from "../../steps/training/config-schema.ts";
import { PYTHON } from "../training/python.ts";

const root = new URL("../../", import.meta.url).pathname;

test("the keys DCSR shares with the DPR trainer are the DPR trainer's own definitions", () => {
  assert.equal(DCSR_TRAINER_FIELDS.lr, TRAINER_FIELDS.lr);
  assert.equal(DCSR_TRAINER_FIELDS.grad_cache_chunk, TRAINER_FIELDS.grad_cache_chunk);
});

test("TypeScript and Python agree on every default and refuse the same out-of-range values", () => {
  const bad: [string, unknown][] = [["in_passage_negatives", 2], ["negative_sentences", 0], ["negative_sentences", 3], ["max_markers", 0], ["lr", 0], ["patience", 1.5]];
  const script = [
    "import json",
    "from dcsr.python.config_schema import SCHEMA",
    "from pytrain.config import defaults, validate_config",
    "out = {'defaults': {k: v for k, v in defaults(SCHEMA).items() if k != 'init'}, 'refused': []}",
    `for key, value in ${JSON.stringify(bad)}:`,
    "    try:",
    "        validate_config({key: value, 'init': {'kind': 'random'}}, SCHEMA)",
    "        out['refused'].append(None)",
    "    except Exception as e:",
    "        out['refused'].append([type(e).__name__, e.field])",
    "print(json.dumps(out))",
  ].join("\n");
  const r = spawnSync(PYTHON, ["-c", script], { cwd: join(root, "steps"), encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const py = JSON.parse(r.stdout) as { defaults: Record<string, unknown>; refused: ([string, string] | null)[] };
  const ts = z.object(dcsrParamsShape).strict().parse({});
  assert.deepEqual(py.defaults, ts);
  assert.deepEqual(py.refused, bad.map(([k]) => ["InputError", k]));
  for (const [key, value] of bad) assert.equal(z.object(dcsrParamsShape).strict().safeParse({ [key]: value }).success, false, `TS refuses ${key}=${String(value)}`);
});
