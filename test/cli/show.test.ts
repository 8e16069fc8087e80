/**
 * `show` prints an entry's provenance chain by step name (read from the store: each input's
 * digest leads to the entry that produced it), in words and as JSON.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT, project, run, tempDir } from "../engine/helpers.ts";
import { buildTargets } from "../fixtures/engine/targets.ts";
import { storeChain } from "../../pipeline/commands/show.ts";
import { showEntry } from "../../pipeline/session.ts";

const MAIN = join(ROOT, "pipeline", "main.ts");
const DEFS = join(ROOT, "test", "fixtures", "engine", "targets.ts");

function cli(args: string[]) {
  return spawnSync(process.execPath, ["--import", "tsx", MAIN, ...args], { cwd: ROOT, env: { ...process.env, CSPIPE_DEFINITIONS: DEFS, CSPIPE_TEST_SLEEP_MS: "0" }, encoding: "utf8" });
}

test("show: the entry in words, then its chain back to the roots by step name", async () => {
  const store = join(tempDir(), "store");
  const p = project(buildTargets(), { store });
  const r = await run(p, ["chain"]);
  assert.equal(r.outcome.ok, true);
  const keys = new Map((await p.store.entries()).map((e) => [e.manifest.step.name, e.key]));
  const k = (name: string) => keys.get(name)!.slice(0, 12);

  const shown = cli(["--store", store, "show", "join-abc"]);
  assert.equal(shown.status, 0, shown.stderr);
  const lines = shown.stdout.split("\n");
  assert.equal(lines[0], "join-abc  (join-text v1)");
  assert.match(shown.stdout, new RegExp(`^  key {7}${keys.get("join-abc")}$`, "m"));
  assert.match(shown.stdout, /^ {2}params {4}label=abc$/m);
  assert.match(shown.stdout, /^ {2}outputs {3}out \(text:plain, \d+ B\): .*\/outputs\/joined\.txt$/m);
  const chain = lines.slice(lines.indexOf("chain (5 entries, by the input each one feeds):") + 1).filter((l) => l !== "");
  assert.deepEqual(
    chain.map((l) => l.replace(/ · [\d.]+ s in-process$/, "")),
    [
      `  join-abc  join-text  ${k("join-abc")}  label=abc`,
      `    a ← join-ab  join-text  ${k("join-ab")}  label=ab`,
      `      a ← slow-a  slow-write  ${k("slow-a")}  label=a, pieces=10`,
      `      b ← slow-b  slow-write  ${k("slow-b")}  label=b, pieces=10`,
      `    b ← slow-c  slow-write  ${k("slow-c")}  label=c, pieces=10`,
    ],
  );

  // The JSON form's chain, in-process (the same function the command calls).
  const { nodes } = await storeChain(p.store, (await showEntry(p, keys.get("join-ab")!.slice(0, 10)))[0]!);
  assert.deepEqual([...nodes.values()].map((n) => [n.name, n.inputs]), [
    ["join-ab", { a: keys.get("slow-a"), b: keys.get("slow-b") }],
    ["slow-a", {}],
    ["slow-b", {}],
  ]);
  assert.deepEqual(await showEntry(p, "nothing-like-this"), []);
});
