/**
 * `plan --data real` without the data starts with what to do: the unpinned files the targets
 * fetch, each with its file name and URL, and --data-dir; failures that differ only in their step
 * (the same missing GPU for 128 steps) are one line with a count. `lock --check` names each
 * unpinned entry's file and URL.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { readLockFile } from "../../pipeline/engine/datasets-lock.ts";
import { describeFailures, type AnalysisFailure } from "../../pipeline/engine/failures.ts";
import { ROOT } from "../engine/helpers.ts";
import { tempDir } from "../tmp.ts";
import { cspipe } from "./cspipe.ts";

const lock = readLockFile(join(ROOT, "datasets.lock"));

test("plan table2 --data real --allow-cpu: one instruction naming the 12 files, where to get them and --data-dir", () => {
  const r = cspipe(["plan", "table2", "--data", "real", "--allow-cpu", "--store", join(tempDir("cspipe-real-plan-"), "store")]);
  assert.equal(r.status, 2);
  assert.equal(r.stdout, "");
  const entries = ["dpr-nq-context-encoder", "dpr-nq-context-encoder-config", "dpr-nq-question-encoder", "dpr-nq-question-encoder-config", "qrecc-collection", "qrecc-qrels", "qrecc-question-types", "qrecc-scai-turns-test", "qrecc-scai-turns-train", "topiocqa-all-history-dev", "topiocqa-all-history-train", "topiocqa-wiki-segments"];
  const w0 = Math.max(...entries.map((e) => e.length));
  const w1 = Math.max(...entries.map((e) => lock.entries[e]!.file.length));
  assert.deepEqual(r.stderr.trimEnd().split("\n"), [
    "error: 12 datasets.lock entries this run fetches have no sha256 yet, so their downloads cannot be verified. Fix: get the files below, put them in one directory under these names, and pass --data-dir <dir> --allow-unpinned (or pin them first: lock --update <entries> --data-dir <dir>); --allow-unpinned alone downloads them unverified",
    ...entries.map((e) => `  ${e.padEnd(w0)}  ${lock.entries[e]!.file.padEnd(w1)}  ${lock.entries[e]!.urls.join(" ")}`),
  ]);
});

test("describeFailures: the same GPU failure of many steps is one line with a count; repeated lines are printed once", () => {
  const detail = "torch 1.13.0 at /usr/bin/python3 (a CPU-only build) sees no CUDA device";
  const failures: AnalysisFailure[] = [
    ...["train-a", "train-b", "train-c", "train-d", "encode-e"].map((step) => ({ reason: "gpu-unavailable" as const, step, detail })),
    { reason: "gpu-unavailable", step: "train-z", detail: "no NVIDIA driver" },
    { reason: "unknown-step", step: "nope", known: ["other-step"] },
    { reason: "unknown-step", step: "nope", known: ["other-step"] },
  ];
  assert.deepEqual(describeFailures(failures), [
    `error: 5 steps request a GPU (train-a, train-b, train-c and 2 more) but ${detail}. Run on a GPU machine, or pass --allow-cpu to run them on CPU`,
    "error: train-z: requests a GPU but no NVIDIA driver. Run on a GPU machine, or pass --allow-cpu to run it on CPU",
    "error: unknown step 'nope' ('plan <target>' lists the 1 step of a target's graph)",
  ]);
});

test("lock --check names each unpinned entry's file and URL", () => {
  const r = cspipe(["lock", "--check"]);
  assert.equal(r.status, 1);
  const e = lock.entries["qrecc-qrels"]!;
  assert.ok(r.stdout.split("\n").includes(`error: qrecc-qrels: sha256 is null; get ${e.file} from ${e.urls.join(" or ")}, then 'lock --update qrecc-qrels --data-dir <dir>' (or 'lock --update qrecc-qrels' on a machine with internet)`), r.stdout);
});
