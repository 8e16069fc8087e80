/**
 * Whether a lease is live: on this host by its holder's identity (pid + start time + boot
 * id), whatever the heartbeat's age; on another host by the heartbeat.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { leaseState } from "../../pipeline/engine/lease.ts";
import { processStartTime, processState, selfIdentity } from "../../pipeline/engine/proc.ts";
import { tempDir } from "./helpers.ts";

const dir = tempDir();
const old = new Date(Date.now() - 3600_000);

function lease(name: string, holder: object, aged: boolean): string {
  const p = join(dir, `${name}.lease`);
  writeFileSync(p, JSON.stringify({ since: new Date().toISOString(), ...holder }));
  if (aged) utimesSync(p, old, old);
  return p;
}

test("this process's identity has a start time (Linux /proc) and is alive", () => {
  const me = selfIdentity();
  assert.equal(me.pid, process.pid);
  assert.match(me.start ?? "", /^\d+$/);
  assert.equal(processStartTime(process.pid), me.start);
  assert.equal(processState(me), "alive");
});

test("same host: live while the holder lives, however old the heartbeat; stale once it is gone or the pid was reused", async () => {
  const me = selfIdentity();
  assert.equal(await leaseState(lease("alive-old", me, true), { ...me, since: "" }), "live");
  const reused = { ...me, start: String(Number(me.start) + 1) };
  assert.equal(await leaseState(lease("reused", reused, false), { ...reused, since: "" }), "stale", "same pid, other start time: another process");
  const deadPid = Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
  const dead = { pid: deadPid, host: hostname(), since: "" };
  assert.equal(await leaseState(lease("dead", dead, false), dead), "stale");
  const rebooted = { ...me, boot: "00000000-0000-0000-0000-000000000000", since: "" };
  assert.equal(await leaseState(lease("rebooted", rebooted, false), rebooted), "stale", "recorded in an earlier boot");
});

test("another host: the heartbeat decides", async () => {
  const other = { pid: process.pid, host: `${hostname()}-elsewhere`, since: "" };
  assert.equal(await leaseState(lease("fresh", other, false), other), "live");
  assert.equal(await leaseState(lease("silent", other, true), other), "stale");
});

test("a lease file that does not parse (its writer died creating it) is judged by its age", async () => {
  const p = join(dir, "torn.lease");
  writeFileSync(p, '{"pid": 1');
  assert.equal(await leaseState(p, undefined), "live");
  utimesSync(p, old, old);
  assert.equal(await leaseState(p, undefined), "stale");
});
