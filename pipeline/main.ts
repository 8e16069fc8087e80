#!/usr/bin/env -S npx tsx
/** Entry point of the CLI: `./cspipe [command] ...` runs it compiled, `npx tsx pipeline/main.ts ...` from the sources (see --help). */
import { main } from "./cli.ts";
import { markPhase, writePhasesOnExit } from "./engine/phases.ts";
import { sourceScanStats } from "./engine/sources.ts";

markPhase("modules");
writePhasesOnExit(process.env, () => sourceScanStats().ms);

ignoreClosedPipe(process.stdout);
ignoreClosedPipe(process.stderr);
const code = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
process.exitCode = code;
// An interrupted run (130 SIGINT, 143 SIGTERM) has released what it held and recorded itself;
// a step that ignored the cancellation must not keep the process alive.
if (code === 130 || code === 143) process.exit(code);

/**
 * `cspipe ls | head`: the reader closed the pipe, so the rest of the output has nowhere to go.
 * That is not an error of the command (no stack trace, no exit code 1): later writes are dropped
 * and the command finishes as it would have.
 */
function ignoreClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
  });
}
