/**
 * Headless Chromium for the report's browser checks and screenshots (Debian's `chromium`,
 * installed by scripts/setup.sh). Flags: a fresh profile, no sandbox (CI runs as root), and no
 * background networking (the machines it runs on have no route out; without these flags
 * Chromium keeps trying to reach Google's hosts).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The Chromium binary: $CSPIPE_CHROMIUM, else the first of chromium / chromium-browser on PATH; undefined if none. */
export function findChromium(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  if (env.CSPIPE_CHROMIUM) return existsSync(env.CSPIPE_CHROMIUM) ? env.CSPIPE_CHROMIUM : undefined;
  for (const name of ["chromium", "chromium-browser"]) {
    const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
    if (r.status === 0 && r.stdout.trim() !== "") return r.stdout.trim();
  }
  return undefined;
}

const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--force-device-scale-factor=1"];

/** Run Chromium on `url` with extra flags; returns stdout (e.g. --dump-dom). Throws with its stderr on failure. */
export function chromium(binary: string, url: string, extra: readonly string[], timeoutMs = 60_000): string {
  const profile = mkdtempSync(join(tmpdir(), "cspipe-chromium-"));
  try {
    const r = spawnSync(binary, [...FLAGS, `--user-data-dir=${profile}`, ...extra, url], { encoding: "utf8", timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
    if (r.status !== 0) throw new Error(`chromium exited with ${r.status ?? r.signal}: ${r.stderr.split("\n").filter((l) => !/dbus|Fontconfig/.test(l)).slice(-5).join("\n")}`);
    return r.stdout;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/** A screenshot of `url` at the given window size. */
export function screenshot(binary: string, url: string, png: string, width: number, height: number): void {
  chromium(binary, url, [`--screenshot=${png}`, `--window-size=${width},${height}`]);
}
