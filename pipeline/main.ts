#!/usr/bin/env -S npx tsx
/** Entry point: `npx tsx pipeline/main.ts [command] ...` (see --help). */
import { main } from "./cli.ts";

const code = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
process.exitCode = code;
