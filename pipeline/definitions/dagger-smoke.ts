/**
 * The `dagger-smoke` target: one in-process step feeding one tiny container step, to
 * check the Dagger path on a user's machine in one command (see docs/dagger.md):
 *
 *   dagger run ./cspipe run dagger-smoke --executor dagger
 *
 * It exercises the pinned image, the cached pip layer, a read-only input mount, PROGRESS
 * lines, and the one-archive export of a directory output. It also runs under the local
 * executor (the program needs only the standard library), which gives the same key.
 */
import { z } from "zod";
import { defineStep, dir, use } from "../engine/step.ts";
import type { Target } from "../engine/targets.ts";
import { generateNumbers } from "../../steps/demo/steps.ts";

/**
 * python:3.12-slim, pinned by the digest found in two independent public repositories
 * (not verifiable from the machine this was written on). If the pull fails, replace it
 * with the current one: `docker buildx imagetools inspect python:3.12-slim`.
 */
export const SMOKE_IMAGE = "python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea";

const PROGRAM = [
  "import json, os, sys",
  "src, out = sys.argv[1], sys.argv[2]",
  "print('PROGRESS 0 2', flush=True)",
  "nums = [float(l) for l in open(src) if l.strip()]",
  "print('PROGRESS 1 2', flush=True)",
  "summary = {'count': len(nums), 'sum': round(sum(nums), 6), 'python': sys.version.split()[0]}",
  "json.dump(summary, open(os.path.join(out, 'summary.json'), 'w'), sort_keys=True)",
  "open(os.path.join(out, 'count.txt'), 'w').write(str(len(nums)) + '\\n')",
  "print('PROGRESS 2 2', flush=True)",
  "print('summarised', len(nums), 'numbers')",
].join("\n");

export const summariseInContainer = defineStep({
  id: "summarise-numbers-in-container",
  version: 1,
  source: import.meta.url,
  description: "Summarise numbers with Python inside a pinned container (Dagger smoke test).",
  params: z.object({}).strict(),
  inputs: { numbers: "text:numbers" },
  outputs: { summary: dir("json:smoke-summary", "summary") },
  runtime: {
    type: "container",
    image: SMOKE_IMAGE,
    argv: ["python3", "-c", PROGRAM, "{in:numbers}", "{out:summary}"],
    // Installed in a cached layer under Dagger only; the program does not import it.
    pip: ["six==1.16.0"],
    resources: { cpus: 1 },
  },
});

export const daggerSmokeTarget: Target = {
  name: "dagger-smoke",
  description: "smoke test of the container path: one tiny Python container step (run under 'dagger run' to test Dagger)",
  steps() {
    const numbers = use(generateNumbers, { name: "generate-numbers.smoke", params: { count: 100, seed: 7 }, inputs: {} });
    return [use(summariseInContainer, { inputs: { numbers: numbers.out.numbers } })];
  },
};
