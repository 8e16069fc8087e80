/**
 * The keys of the steps that run the repository's Python programs cover the programs' whole
 * import closure, as Python itself finds it: for every such step of `report`, `table5`,
 * `table-dcsr` and `table2 --data real`, the sources that enter its key (SourceScanner over the
 * step's definition) hold every repository module Python's modulefinder says the program can
 * import (it reads the bytecode: imports inside functions count). And in a copy of the tree, an
 * edit to a shared module changes the sources of exactly the steps whose programs can import it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import { PYTHON_SOURCE } from "../../pipeline/engine/programs.ts";
import { SourceScanner } from "../../pipeline/engine/sources.ts";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import type { DataSource } from "../../pipeline/engine/targets.ts";
import { tempDir } from "../tmp.ts";
import { PYTHON, ROOT } from "../training/python.ts";
import { wiredInputs } from "../../pipeline/engine/wiring.ts";

/** Python's own view: the repository modules modulefinder finds from each module (searching only the root). */
const MODULEFINDER = String.raw`
import json, modulefinder, os, sys
root = os.path.abspath(sys.argv[1])
out = {}
for m in sys.argv[2:]:
    f = modulefinder.ModuleFinder(path=[root])
    if m == "__main__":
        f.run_script(os.path.join(root, "__main__.py"))
    else:
        f.import_hook(m)
    out[m] = sorted(os.path.relpath(x.__file__, root) for x in f.modules.values() if x.__file__ and os.path.abspath(x.__file__).startswith(root + os.sep))
print(json.dumps(out))
`;

function pythonClosures(root: string, modules: readonly string[]): Record<string, string[]> {
  const r = spawnSync(PYTHON, ["-c", MODULEFINDER, root, ...modules], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Record<string, string[]>;
}

/** The distinct step definitions of the targets that run a repository Python program, with its modules. */
function programSteps(targets: readonly [string, DataSource][]): { def: AnyStep["def"]; modules: { root: string; module: string }[] }[] {
  const registry = buildTargets();
  const defs = new Set<AnyStep["def"]>();
  for (const [name, data] of targets) {
    const seen = new Set<AnyStep>();
    const walk = (s: AnyStep): void => {
      if (seen.has(s)) return;
      seen.add(s);
      defs.add(s.def);
      for (const { ref } of wiredInputs(s)) walk(ref.step);
    };
    for (const s of registry.get(name)!.steps({ data })) walk(s);
  }
  return [...defs].flatMap((def) => {
    const modules = (def.extraSources ?? []).flatMap((x) => {
      const m = PYTHON_SOURCE.exec(x);
      return m ? [{ root: m[1]!, module: m[2]! }] : [];
    });
    return modules.length > 0 ? [{ def, modules }] : [];
  });
}

const TARGETS: [string, DataSource][] = [["report", "mini"], ["table5", "mini"], ["table-dcsr", "mini"], ["table2", "real"]];
const steps = programSteps(TARGETS);
const modules = [...new Set(steps.flatMap((s) => s.modules.map((m) => m.module)))].sort();

test("every step that runs a Python program of the repository has the program's whole import closure in its key", () => {
  assert.deepEqual(modules, ["__main__", "dcsr.python.train_dcsr", "encoding.gpu.encode", "qa.dpr_reader.train_reader", "qa.fid.fid", "qa.fid.train_spm", "training.dpr.train"]);
  assert.ok(steps.every((s) => s.modules.every((m) => m.root === "steps")), "every program runs from the one source root");
  const closures = pythonClosures(join(ROOT, "steps"), modules);
  const scanner = new SourceScanner(ROOT);
  for (const { def, modules: mods } of steps) {
    const sources = Object.keys(scanner.fingerprint(def.source, def.extraSources).files);
    const python = sources.filter((f) => f.endsWith(".py"));
    const want = [...new Set(mods.flatMap((m) => closures[m.module]!.map((f) => `steps/${f}`)))].sort();
    assert.deepEqual(python, want, `${def.id}: its Python sources are exactly the closure Python finds`);
  }
  assert.ok(closures["qa.fid.fid"]!.includes("pytrain/run.py") && closures["qa.dpr_reader.train_reader"]!.includes("pytrain/run.py"), "device and seeding reach the readers");
});

test("in a copy of the tree, editing a shared module re-keys exactly the steps whose programs can import it", () => {
  const copy = tempDir("cspipe-tree-copy-");
  for (const part of ["steps", "pipeline"]) cpSync(join(ROOT, part), join(copy, part), { recursive: true, filter: (p) => !p.includes("__pycache__") });
  writeFileSync(join(copy, "package.json"), "{}\n");
  const inCopy = (source: string) => join(copy, relative(ROOT, fileURLToPath(source)));
  const sources = () => {
    const scanner = new SourceScanner(copy);
    return steps.map((s) => scanner.fingerprint(inCopy(s.def.source), s.def.extraSources).files);
  };
  const closures = pythonClosures(join(copy, "steps"), modules);
  for (const edited of ["pytrain/run.py", "qa/fid/t5_model.py", "pytrain/bert_model.py"]) {
    const before = sources();
    appendFileSync(join(copy, "steps", edited), "# edited\n");
    const after = sources();
    const rekeyed = steps.filter((_, i) => JSON.stringify(before[i]) !== JSON.stringify(after[i])).map((s) => s.def);
    const importing = steps.filter((s) => s.modules.some((m) => closures[m.module]!.includes(edited))).map((s) => s.def);
    assert.deepEqual(rekeyed, importing, edited);
    assert.ok(importing.length > 0 && importing.length < steps.length, `${edited}: some steps import it, some do not`);
  }
});
