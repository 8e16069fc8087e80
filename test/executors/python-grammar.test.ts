/**
 * The Python programs run under interpreters we cannot install here: log_tee.py under
 * whatever python3 a user's image has (3.6 and up), the trainers in the pinned PyTorch image
 * (3.10; checked against 3.8 for older user images). `ast.parse(..., feature_version=...)`
 * rejects newer grammar (walrus, match, parenthesised context managers, ...). It does not
 * check library APIs; those are kept to long-standing stdlib calls by review.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../engine/helpers.ts";
import { PYTHON } from "../training/python.ts";
import { tempDir } from "../tmp.ts";

const CHECK = String.raw`
import ast, json, sys
minor = int(sys.argv[1])
bad = {}
for path in sys.argv[2:]:
    try:
        ast.parse(open(path, encoding="utf-8").read(), filename=path, feature_version=(3, minor))
    except SyntaxError as e:
        bad[path] = f"line {e.lineno}: {e.msg}"
print(json.dumps(bad))
`;

function grammarErrors(minor: number, files: string[]): Record<string, string> {
  const r = spawnSync(PYTHON, ["-c", CHECK, String(minor), ...files], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Record<string, string>;
}

test("log_tee.py parses as Python 3.6 and every program under steps/ (the trainers, the package) as Python 3.8", () => {
  assert.deepEqual(grammarErrors(6, [join(ROOT, "pipeline/executors/dagger/log_tee.py")]), {});
  const steps = join(ROOT, "steps");
  const programs = (readdirSync(steps, { recursive: true }) as string[]).filter((f) => f.endsWith(".py")).map((f) => join(steps, f));
  assert.ok(programs.length >= 50, programs.join(", "));
  assert.deepEqual(grammarErrors(8, programs), {});
});

test("the grammar check rejects newer syntax (so it can fail)", () => {
  const f = join(tempDir("cspipe-pygrammar-"), "new.py");
  writeFileSync(f, "if (n := 3) > 2:\n    pass\n");
  assert.match(grammarErrors(7, [f])[f] ?? "", /line 1/);
  assert.deepEqual(grammarErrors(8, [f]), {});
});
