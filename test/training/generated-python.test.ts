/**
 * The Python modules generated from TypeScript sources (steps/pytrain/generated.ts): the config
 * schemas of every program and the model configurations. Each must equal what its source gives
 * now (`npx tsx scripts/gen-python.ts` rewrites them); and the model configurations mean the same
 * on both sides: every field's default, and the same shapes refused by the steps' params and by
 * the Python dataclass.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { GENERATED_PYTHON, pyLiteral } from "../../steps/pytrain/generated.ts";
import { BERT, modelConfigParams, T5 } from "../../steps/pytrain/model-configs.ts";
import { PYTHON, ROOT } from "./python.ts";

test("every generated Python module is what its TypeScript source gives now (run npx tsx scripts/gen-python.ts when this fails)", () => {
  assert.ok(Object.keys(GENERATED_PYTHON).length >= 6);
  for (const [file, text] of Object.entries(GENERATED_PYTHON)) assert.equal(readFileSync(join(ROOT, file), "utf8"), text(), `${file} is stale`);
});

test("Python literals: booleans, None, nested containers, strings as JSON writes them", () => {
  assert.equal(pyLiteral({ a: [true, null, 1.5, "x\"y"], b: {} }), '{\n    "a": [True, None, 1.5, "x\\"y"],\n    "b": {},\n}');
});

const py = (code: string) => {
  const r = spawnSync(PYTHON, ["-c", code], { cwd: join(ROOT, "steps"), encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as unknown;
};

test("the dataclasses default every field as the source does, and refuse what the steps' params refuse", () => {
  const defaults = py("import dataclasses, json\nfrom pytrain.model_configs import BertConfig, T5Config\nprint(json.dumps([dataclasses.asdict(BertConfig()), dataclasses.asdict(T5Config())]))");
  const want = (spec: typeof BERT | typeof T5) => Object.fromEntries(Object.entries(spec.fields).map(([k, f]) => [k, f.default]));
  assert.deepEqual(defaults, [want(BERT), want(T5)]);
  const bad = { hidden_size: 33, num_hidden_layers: 1, num_attention_heads: 2, intermediate_size: 8 };
  assert.equal(modelConfigParams(BERT).safeParse(bad).success, false, "TS refuses a width that is no multiple of the heads");
  assert.equal(modelConfigParams(BERT).safeParse({ ...bad, hidden_size: 32 }).success, true);
  assert.equal(modelConfigParams(BERT, ["vocab_size"]).safeParse({ ...bad, hidden_size: 32, vocab_size: 9 }).success, false, "an omitted field is refused");
  const refused = py(`import json\nfrom pytrain.model_configs import BertConfig, T5Config
out = []
for cls, d in ((BertConfig, ${JSON.stringify(bad)}), (BertConfig, {"hidden_act": "relu"}), (T5Config, {"feed_forward_proj": "gated-gelu"})):
    try:
        cls.from_dict(d)
        out.append(None)
    except ValueError as e:
        out.append(str(e))
print(json.dumps(out + [T5Config.from_dict({"num_layers": 3}).num_decoder_layers]))`);
  assert.deepEqual(refused, [
    "hidden_size 33 is not a multiple of num_attention_heads 2",
    "hidden_act 'relu' is not supported: only 'gelu' is implemented",
    "feed_forward_proj 'gated-gelu' is not supported: only 'relu' is implemented",
    3,
  ]);
});
