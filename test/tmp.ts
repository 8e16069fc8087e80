/**
 * Temporary directories for tests, removed when the test process exits (each test file runs
 * in its own process under node:test). A full run used to leave thousands of directories
 * and about 700 MB (the end-to-end store) in the system temp directory every time.
 * CSPIPE_KEEP_TEST_TMP=1 keeps them for debugging.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

function removeAll(): void {
  if (process.env.CSPIPE_KEEP_TEST_TMP === "1") return;
  for (const d of made.splice(0)) {
    try {
      rmSync(d, { recursive: true, force: true });
    } catch {
      // best effort: a directory still in use by a killed child is left behind
    }
  }
}

/** A fresh directory under `parent` (the system temp directory by default), removed at exit. */
export function tempDir(prefix = "cspipe-test-", parent = tmpdir()): string {
  if (made.length === 0) process.once("exit", removeAll);
  const d = mkdtempSync(join(parent, prefix));
  made.push(d);
  return d;
}
