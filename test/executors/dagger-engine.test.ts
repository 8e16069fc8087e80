/**
 * The Dagger executor inside the real engine, with a fake engine connection whose export
 * is a tar made here: the engine hashes what was unpacked into staging and publishes an
 * entry whose key is the same as under the local executor.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, file, use } from "../../pipeline/engine/step.ts";
import { analyze } from "../../pipeline/engine/graph.ts";
import { planGraph, runGraph } from "../../pipeline/engine/engine.ts";
import type { EngineEvent } from "../../pipeline/engine/events.ts";
import { DaggerExecutor } from "../../pipeline/executors/dagger.ts";
import type { ContainerBuilder } from "../../pipeline/executors/dagger/run.ts";
import { project, registry } from "../engine/helpers.ts";
import { tempDir } from "../tmp.ts";

const trainDef = defineStep({
  id: "train-tiny-model",
  version: 1,
  source: import.meta.url,
  params: z.object({ seed: z.number() }),
  inputs: {},
  outputs: { model: file("checkpoint", "model/model.bin") },
  runtime: { type: "container", image: `python:3.11-slim@sha256:${"b".repeat(64)}`, argv: ["python3", "-c", "print('PROGRESS 1 1')", "{out:model}"], pip: ["numpy==1.26.4"] },
});

/**
 * A container that "ran" and left /cspipe/out/model.bin = `bytes`. Its program streams
 * its output to the bound log receiver (as log_tee.py would) and finishes only once
 * `streamed()` says the engine has seen it.
 */
function fakeContainer(calls: string[], bytes: string, streamed: () => boolean): ContainerBuilder {
  let port = 0;
  let token = "";
  const self: ContainerBuilder = {
    from: (i) => (calls.push(`from ${i}`), self),
    withMountedCache: () => self,
    withMountedDirectory: () => self,
    withMountedFile: () => self,
    withEnvVariable: (name, value) => {
      if (name === "CSPIPE_LOG_STREAM_TOKEN") token = value;
      return self;
    },
    withSecretVariable: () => self,
    withGpus: () => self,
    withWorkdir: () => self,
    withServiceBinding: (alias, p) => {
      calls.push(`bind ${alias}`);
      port = p;
      return self;
    },
    withExec: (argv) => (calls.push(`exec ${argv.join(" ").replace(/--port \d+/, "--port N")}`), self),
    combinedOutput: async () => {
      const s = connect(port, "127.0.0.1");
      await once(s, "connect");
      s.write(`CSPIPE-LOG-STREAM 1 ${token}\nPROGRESS 1 1\ntrained\n`);
      for (let i = 0; i < 3000 && !streamed(); i++) await new Promise((r) => setTimeout(r, 5));
      s.end();
      await once(s, "close");
      return "PROGRESS 1 1\ntrained\n";
    },
    exportFile: async (_path, hostPath) => {
      const out = tempDir("cspipe-dagger-out-");
      writeFileSync(join(out, "model.bin"), bytes);
      assert.equal(spawnSync("tar", ["-C", out, "-cf", hostPath, "."]).status, 0);
    },
  };
  return self;
}

test("engine + Dagger executor: the unpacked archive is hashed and published; the key does not depend on the executor", async () => {
  const step = use(trainDef, { params: { seed: 1 }, inputs: {} });
  const p = project(registry({ tiny: () => [step] }));
  const g = analyze([step], p.lock);
  assert.ok(g.ok);
  const calls: string[] = [];
  const events: EngineEvent[] = [];
  // The program finishes only after its progress and its last line reached the engine's events.
  let whileRunning: EngineEvent[] = [];
  const streamed = () => {
    const ok = events.some((e) => e.type === "progress") && events.some((e) => e.type === "log" && e.line === "trained");
    if (ok) whileRunning = [...events];
    return ok;
  };
  const ex = new DaggerExecutor({ env: {}, connect: async () => ({ backend: { container: () => fakeContainer(calls, "WEIGHTS", streamed) }, close: async () => {} }) });
  const r = await runGraph(g.graph, {
    store: p.store,
    executor: ex,
    keys: p.keyContext(ex),
    sourceRoot: p.root,
    settings: {},
    emit: (e) => events.push(e),
    concurrency: 1,
    failureMode: "stop",
    force: new Set(),
    verify: false,
    targets: ["tiny"],
    tools: p.tools(),
  });
  assert.equal(r.ok, true, JSON.stringify(r.failures));
  const entry = r.results.get(step.name)!.entry!;
  assert.equal(readFileSync(p.store.outputPath(entry, "model"), "utf8"), "WEIGHTS");
  assert.equal(entry.manifest.executor, "dagger");
  assert.equal(entry.manifest.outputs.model!.size, 7);
  assert.equal(entry.manifest.tools["container-image"], trainDef.runtime.type === "container" ? trainDef.runtime.image : "");
  assert.deepEqual(calls, [
    `from python:3.11-slim@sha256:${"b".repeat(64)}`,
    "exec python3 -m pip install numpy==1.26.4",
    "exec mkdir -p /cspipe/out /cspipe/work",
    "bind cspipe-log",
    "exec python3 /cspipe/bin/log_tee.py --host cspipe-log --port N -- python3 -c print('PROGRESS 1 1') /cspipe/out/model.bin",
    "exec tar -C /cspipe/out -cf /cspipe/outputs.tar .",
  ]);
  // PROGRESS lines became progress events, other lines log events, while the program ran.
  assert.ok(whileRunning.some((e) => e.type === "progress" && e.step === step.name && e.done === 1 && e.total === 1));
  assert.ok(whileRunning.some((e) => e.type === "log" && e.step === step.name && e.line === "trained"));
  // …and the exec's full output at the end added neither again.
  assert.equal(events.filter((e) => e.type === "log" && e.line === "trained").length, 1);
  assert.equal(events.filter((e) => e.type === "progress").length, 1);
  // The executor's name is not in the key, its numerics are: the container computes with the
  // image's software, a local run with the host's interpreter, so the local plan has another key.
  assert.deepEqual((await p.store.fingerprint(entry)).numerics, { executor: "dagger", device: "cpu", kernels: "pinned-avx2", threads: 1, engine: "local" });
  const rows = await planGraph(g.graph, { store: p.store, keys: p.keyContext("local"), force: new Set() });
  assert.notEqual(rows[0]!.key, entry.key);
});
