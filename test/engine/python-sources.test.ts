/**
 * A Python program's import closure enters the keys of its steps (pipeline/engine/programs.ts,
 * python-imports.ts): the import statements as Python reads them (not those in strings or
 * comments; those inside functions, `try` and `if` too), resolved from the program's source root,
 * the packages above each module included, the interpreter's own modules left out; and the
 * program itself read from a step's argv, so no step lists its Python sources by hand.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { programSources } from "../../pipeline/engine/programs.ts";
import { pythonImports, PythonImportResolver } from "../../pipeline/engine/python-imports.ts";
import { SourceScanner } from "../../pipeline/engine/sources.ts";
import { defineStep, dir, use } from "../../pipeline/engine/step.ts";
import { fingerprintOf } from "../../pipeline/engine/keys.ts";
import { diffFingerprints } from "../../pipeline/engine/fingerprint.ts";
import { tempDir } from "../tmp.ts";

test("import statements: absolute, from, relative, aliased, bracketed, in functions and one-line blocks; none in strings or comments", () => {
  const src = [
    '"""Docstring: import fake_in_docstring',
    'from fake_too import x"""',
    "import os, a.b as ab  # import fake_in_comment",
    "from .sib import (x,",
    "    y as z)",
    "from .. import up",
    "s = 'import fake_in_string'; import c",
    "def f():",
    "    from d.e import g",
    "try: import h",
    "except ImportError: pass",
    "x = \\",
    "    1",
    "from k import *",
  ].join("\n");
  assert.deepEqual(pythonImports(src), [
    { level: 0, module: "os", names: [] },
    { level: 0, module: "a.b", names: [] },
    { level: 1, module: "sib", names: ["x", "y"] },
    { level: 2, module: "", names: ["up"] },
    { level: 0, module: "c", names: [] },
    { level: 0, module: "d.e", names: ["g"] },
    { level: 0, module: "h", names: [] },
    { level: 0, module: "k", names: ["*"] },
  ]);
});

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** A source root: a launcher, a package with a shared module, two programs (one importing it in a function). */
function tree(): string {
  const root = tempDir("cspipe-pysrc-");
  writeFileSync(join(root, "package.json"), "{}\n");
  write(join(root, "py"), {
    "__main__.py": "import runpy, sys\n",
    "lib/__init__.py": "",
    "lib/shared.py": "import torch\nfrom . import leaf\n",
    "lib/leaf.py": "import numpy as np\n",
    "lib/unused.py": "",
    "progs/__init__.py": "",
    "progs/one.py": "import json\ndef main():\n    from lib.shared import thing\n",
    "progs/two.py": "from lib import leaf\n",
  });
  return root;
}

test("the closure: the module, the packages above it, what it can import, transitively; installed modules are not the repository's", () => {
  const r = new PythonImportResolver(join(tree(), "py"));
  const rel = (files: string[]) => files.map((f) => f.slice(r.root.length + 1));
  assert.deepEqual(rel(r.closure("progs.one")), ["lib/__init__.py", "lib/leaf.py", "lib/shared.py", "progs/__init__.py", "progs/one.py"]);
  assert.deepEqual(rel(r.closure("progs.two")), ["lib/__init__.py", "lib/leaf.py", "progs/__init__.py", "progs/two.py"]);
  assert.deepEqual(rel(r.closure("__main__")), ["__main__.py"]);
});

test("a repository import that does not resolve, and a directory of modules without __init__.py, are errors", () => {
  const root = tree();
  write(join(root, "py"), { "progs/bad.py": "import lib.missing\n", "loose/m.py": "", "progs/loose.py": "import loose.m\n" });
  const r = new PythonImportResolver(join(root, "py"));
  assert.throws(() => r.closure("progs.bad"), /progs\/bad\.py: cannot resolve import 'lib\.missing'/);
  assert.throws(() => r.closure("progs.loose"), /loose holds Python modules but no __init__\.py/);
});

test("the program a step runs comes from its argv: the launcher and its module, or a script; other argvs name none", () => {
  const rt = (argv: string[]) => ({ type: "container", argv });
  assert.deepEqual(programSources(rt(["python3", "{src}/steps", "training.dpr.train", "--config", "{params}"])), ["python:steps:__main__", "python:steps:training.dpr.train"]);
  assert.deepEqual(programSources(rt(["/usr/bin/python3", "{src}/tools/run.py", "x"])), ["python:tools:run"]);
  assert.deepEqual(programSources(rt(["python3", "-c", "print(1)"])), []);
  assert.deepEqual(programSources(rt(["bash", "{src}/x.sh"])), []);
  assert.deepEqual(programSources({ type: "in-process" }), []);
});

test("defineStep puts the program's closure into the key's sources; editing a module re-keys exactly the steps that can import it", () => {
  const root = tree();
  const mod = join(root, "m.ts");
  writeFileSync(mod, "export const x = 1;\n");
  const def = (module: string) =>
    defineStep({
      id: `run-${module.replace(".", "-")}`,
      version: 1,
      source: pathToFileURL(mod).href,
      params: z.object({}),
      inputs: {},
      outputs: { out: dir("o", "o") },
      runtime: { type: "container", image: `x@sha256:${"a".repeat(64)}`, argv: ["python3", "{src}/py", module, "{out:out}"] },
    });
  const steps = [def("progs.one"), def("progs.two")];
  assert.deepEqual(steps[0]!.extraSources, ["python:py:__main__", "python:py:progs.one"]);
  const sources = () => steps.map((s) => new SourceScanner(root).fingerprint(s.source, s.extraSources).files);
  const before = sources();
  assert.ok("py/lib/shared.py" in before[0]! && !("py/lib/shared.py" in before[1]!));
  writeFileSync(join(root, "py/lib/shared.py"), "import torch\nfrom . import leaf\n# edited\n");
  const afterShared = sources();
  assert.notDeepEqual(afterShared[0], before[0], "one imports shared.py (in a function)");
  assert.deepEqual(afterShared[1], before[1], "two does not");
  writeFileSync(join(root, "py/lib/leaf.py"), "import numpy as np\n# edited\n");
  const afterLeaf = sources();
  assert.notDeepEqual(afterLeaf[0], afterShared[0]);
  assert.notDeepEqual(afterLeaf[1], afterShared[1]);
});

test("a package loaded through createRequire is a package of the module", () => {
  const root = tempDir("cspipe-require-");
  writeFileSync(join(root, "package.json"), "{}\n");
  mkdirSync(join(root, "node_modules", "native-thing"), { recursive: true });
  writeFileSync(join(root, "node_modules", "native-thing", "package.json"), '{"version": "1.2.3"}\n');
  writeFileSync(join(root, "a.ts"), 'import { createRequire } from "node:module";\nexport const m = () => createRequire(import.meta.url)("native-thing");\n');
  assert.deepEqual(new SourceScanner(root).fingerprint(join(root, "a.ts")).packages, { "native-thing": "1.2.3" });
});

test("explain names a changed Python module the way it names a TypeScript one", () => {
  const root = tree();
  const mod = join(root, "m.ts");
  writeFileSync(mod, "export const x = 1;\n");
  const def = defineStep({
    id: "run-one",
    version: 1,
    source: pathToFileURL(mod).href,
    params: z.object({}),
    inputs: {},
    outputs: { out: dir("o", "o") },
    runtime: { type: "container", image: `x@sha256:${"a".repeat(64)}`, argv: ["python3", "{src}/py", "progs.one", "{out:out}"] },
  });
  const step = use(def, { inputs: {} });
  const fp = () => fingerprintOf(step, {}, () => undefined, { scanner: new SourceScanner(root), lock: { version: 1, entries: {} }, env: {}, executor: "local" })!;
  const before = fp();
  writeFileSync(join(root, "py/lib/leaf.py"), "import numpy as np\n# edited\n");
  writeFileSync(mod, "export const x = 2;\n");
  assert.deepEqual(diffFingerprints(before, fp()), ["source m.ts changed", "source py/lib/leaf.py changed"]);
});
