/**
 * ./cspipe (scripts/launch.mjs): compiles the sources when they changed, reuses a build when they
 * did not (no rebuild for a touched-but-equal file), keeps older builds for commands still running,
 * survives two commands building at once, and computes the same keys as the tsx command.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, tempDir } from "./helpers.ts";

const LAUNCH = join(ROOT, "scripts", "launch.mjs");
type Ensure = (o: { root: string; dirs: string[]; vendor: string[]; buildsDir: string }) => Promise<{ dir: string; id: string; built: boolean }>;
const { ensureBuild } = (await import(pathToFileURL(LAUNCH).href)) as { ensureBuild: Ensure };

const fixture = tempDir("cspipe-launch-");
const FILES: Record<string, string> = {
  "package.json": '{ "type": "module" }\n',
  "mod/a.ts": 'import { b } from "./b.ts";\nexport const value: number = b + 1;\n',
  "mod/b.ts": "export const b: number = 41;\n",
};
for (const [rel, text] of Object.entries(FILES)) {
  mkdirSync(join(fixture, rel, ".."), { recursive: true });
  writeFileSync(join(fixture, rel), text);
}
const opts = (buildsDir: string) => ({ root: fixture, dirs: ["mod"], vendor: [], buildsDir });
// Builds of the real project must sit inside it, so the compiled modules resolve node_modules.
const realBuilds = tempDir(".cspipe-test-builds-", join(ROOT, "node_modules"));
after(() => rmSync(realBuilds, { recursive: true, force: true }));

test("a build is made once, reused while the sources are unchanged (even if touched), and replaced when they change", async () => {
  const builds = join(fixture, "builds");
  const first = await ensureBuild(opts(builds));
  assert.equal(first.built, true);
  assert.ok(existsSync(join(first.dir, "mod", "a.js")));
  const again = await ensureBuild(opts(builds));
  assert.deepEqual([again.dir, again.id, again.built], [first.dir, first.id, false]);
  // same bytes, new mtime: hashed, found equal, no rebuild
  utimesSync(join(fixture, "mod/b.ts"), new Date(), new Date(Date.now() + 5000));
  assert.equal((await ensureBuild(opts(builds))).built, false);
  writeFileSync(join(fixture, "mod/b.ts"), "export const b: number = 1;\n");
  const changed = await ensureBuild(opts(builds));
  assert.equal(changed.built, true);
  assert.notEqual(changed.id, first.id);
  assert.ok(existsSync(join(first.dir, "mod", "a.js")), "the older build stays for commands still using it");
  const m = (await import(pathToFileURL(join(changed.dir, "mod", "a.js")).href)) as { value: number };
  assert.equal(m.value, 2);
  // back to the first sources: the first build is found again
  writeFileSync(join(fixture, "mod/b.ts"), FILES["mod/b.ts"]!);
  const back = await ensureBuild(opts(builds));
  assert.deepEqual([back.dir, back.id, back.built], [first.dir, first.id, false]);
});

test("two commands building the same sources at once both succeed with one build", async () => {
  const builds = join(fixture, "builds-race");
  const script = `import(${JSON.stringify(pathToFileURL(LAUNCH).href)}).then(async (m) => { const b = await m.ensureBuild(${JSON.stringify(opts(builds))}); console.log(b.id); })`;
  const one = () =>
    new Promise<string>((resolve, reject) => {
      const c = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let err = "";
      c.stdout.on("data", (d: Buffer) => (out += d.toString()));
      c.stderr.on("data", (d: Buffer) => (err += d.toString()));
      c.on("close", (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(err))));
    });
  const [a, b] = await Promise.all([one(), one()]);
  assert.equal(a, b);
  assert.deepEqual(readdirSync(builds).sort(), [a, "current.json"]);
});

test("a source that does not compile is an error (the launcher then runs the sources with tsx)", async () => {
  writeFileSync(join(fixture, "mod/bad.ts"), "export const x = ;\n");
  try {
    await assert.rejects(ensureBuild(opts(join(fixture, "builds"))));
  } finally {
    rmSync(join(fixture, "mod/bad.ts"));
  }
});

function cspipe(args: string[], env: Record<string, string>): { executed: number; cached: number; stderr: string } {
  const r = spawnSync(join(ROOT, "cspipe"), args, {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, CSPIPE_BUILDS_DIR: realBuilds, CSPIPE_BENCH_LAYERS: "2", CSPIPE_BENCH_WIDTH: "2", ...env },
  });
  assert.equal(r.status, 0, r.stderr);
  const fin = r.stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { type: string; executed: number; cached: number })
    .find((e) => e.type === "finished")!;
  return { executed: fin.executed, cached: fin.cached, stderr: r.stderr };
}

test("./cspipe compiles the project, then shares keys with the tsx command and with its own tsx fallback", () => {
  const store = join(tempDir("cspipe-launch-store-"), "store");
  const defs = { CSPIPE_DEFINITIONS: join(ROOT, "bench", "engine", "dag.ts") };
  const cold = cspipe(["run", "--json", "--store", store, "dag"], defs);
  assert.deepEqual([cold.executed, cold.cached], [4, 0]);
  assert.match(cold.stderr, /sources changed; compiled them/);
  const warm = cspipe(["run", "--json", "--store", store, "dag"], defs);
  assert.deepEqual([warm.executed, warm.cached, warm.stderr], [0, 4, ""]);
  const viaTsx = cspipe(["run", "--json", "--store", store, "dag"], { ...defs, CSPIPE_LAUNCH: "tsx" });
  assert.deepEqual([viaTsx.executed, viaTsx.cached], [0, 4]);
  const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "pipeline", "main.ts"), "run", "--json", "--store", store, "dag"], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, ...defs, CSPIPE_BENCH_LAYERS: "2", CSPIPE_BENCH_WIDTH: "2" },
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /"executed":0,"cached":4/);
  // a definitions module outside the compiled folders runs from the sources
  const outside = cspipe(["run", "--json", "--store", store, "chain"], { CSPIPE_DEFINITIONS: join(ROOT, "test", "fixtures", "engine", "targets.ts") });
  assert.ok(outside.executed > 0 && outside.cached === 0, JSON.stringify(outside));
  assert.ok(readFileSync(join(realBuilds, "current.json"), "utf8").includes('"pipeline/cli.ts"'));
});
