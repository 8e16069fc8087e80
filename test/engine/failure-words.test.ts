import { test } from "node:test";
import assert from "node:assert/strict";
import { describeFailure, type Failure } from "../../pipeline/engine/failures.ts";

/** One record with every field any failure has; each reason reads the fields it declares. */
const FIELDS = { step: "s", target: "tbl", known: ["tbl2", "a"], steps: ["a", "b"], input: "i", detail: "d", producer: "p", output: "o", expected: "e", actual: "x", issues: ["q: bad", "r: worse"], dataset: "ds", image: "img", outputs: ["o1", "o2"], key: "k".repeat(64), executor: "slurm", setting: "--gpus", fix: "do it", targets: ["t1", "t2"], message: "m", log: "/log", argv: ["python3", "x.py"], exitStatus: 3, signal: null, tail: ["l1", "l2"], upstream: "u", code: "ENOSPC", path: "/p" };
const failure = (reason: Failure["reason"], extra: object = {}): Failure => ({ ...FIELDS, reason, ...extra }) as unknown as Failure;

/** The words of every reason (pipeline/engine/failures.ts), as they were when they moved from a switch into registries. */
const WORDS: [Failure["reason"], string][] = [
  ["unknown-target", "unknown target 'tbl'; did you mean 'tbl2'? ('targets' lists all 2)"],
  ["unknown-step", "unknown step 's'; did you mean 'a'? ('plan <target>' lists the 2 steps of a target's graph)"],
  ["cycle", "cycle: a -> b"],
  ["duplicate-step-name", "two different steps are both named 's': give one a distinct name"],
  ["missing-input", "s: input 'i' is not wired"],
  ["wrong-wiring", "s: input 'i' d"],
  ["unknown-output", "s: input 'i' refers to output 'o' which step 'p' does not declare"],
  ["kind-mismatch", "s: input 'i' expects kind e but is wired to x"],
  ["invalid-params", "s: invalid params: q: bad; r: worse"],
  ["dataset-not-locked", "s: dataset 'ds' has no entry in datasets.lock"],
  ["dataset-unpinned", "s: datasets.lock entry 'ds' has no sha256 yet, so its download cannot be verified. Pin it with 'lock --update ds' on a machine with internet (then commit datasets.lock), or pass --allow-unpinned to fetch it once unverified"],
  ["image-not-pinned", "s: container image 'img' is not pinned by digest (use name@sha256:<digest>)"],
  ["input-not-cached", "s: --only needs input 'i' from step 'p' in the cache; run 'p' first"],
  ["digest-mismatch", "s: cached entry kkkkkkkkkkkk fails verification (outputs o1, o2 changed on disk)"],
  ["gpu-unavailable", "s: requests a GPU but d. Run on a GPU machine, or pass --allow-cpu to run it on CPU"],
  ["executor-unavailable", "executor slurm is unavailable: d"],
  ["invalid-setting", "--gpus: d"],
  ["invalid-source", "s: d"],
  ["invalid-resources", "s: invalid resources: d. Fix: the step's resources (its runtime's, or use(..., { resources }) in pipeline/definitions)"],
  ["unschedulable", "s: slurm cannot run it: d. Fix: do it"],
  ["invalid-override", "m [targets t1, t2]"],
  ["step-threw", "s failed: m (log: /log)"],
  ["bad-input", "s: m (log: /log)"],
  ["exit-nonzero", "s: command exited with 3: python3 x.py\n  log: /log\n  last lines:\n    l1\n    l2"],
  ["interpreter-missing", "s: m"],
  ["missing-output", "s: did not produce output 'o' (expected e); log: /log"],
  ["upstream-failed", "s: not run because 'u' failed"],
  ["cancelled", "s: cancelled"],
  ["job-failed", "s: m\n  log: /log\n  last lines:\n    l1\n    l2\n  Fix: do it"],
  ["store-failed", "s: cannot write the store: m. Fix: do it"],
  ["input-changed", "s: input 'i' changed on disk while this run was going, and recomputing 'p' gave different bytes (is it deterministic?); run again"],
];

test("every failure reason has its words", () => {
  for (const [reason, words] of WORDS) assert.equal(describeFailure(failure(reason)), words, reason);
});

test("a program's failure without log lines, fix or exit status: the log alone, the signal", () => {
  const bare = { tail: [], fix: undefined, exitStatus: undefined, signal: "SIGKILL" };
  assert.equal(describeFailure(failure("exit-nonzero", bare)), "s: command exited with SIGKILL: python3 x.py\n  log: /log");
  assert.equal(describeFailure(failure("job-failed", bare)), "s: m\n  log: /log");
});
