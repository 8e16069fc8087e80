#!/usr/bin/env -S npx tsx
/** Entry point of the CLI: `./cspipe [command] ...` runs it compiled, `npx tsx pipeline/main.ts ...` from the sources (see --help). */
import { main } from "./cli.ts";

const code = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
process.exitCode = code;
// An interrupted run (130 SIGINT, 143 SIGTERM) has released what it held and recorded itself;
// a step that ignored the cancellation must not keep the process alive.
if (code === 130 || code === 143) process.exit(code);
