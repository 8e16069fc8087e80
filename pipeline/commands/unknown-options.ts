/**
 * A mistyped option of a command that also has a required option (`evaluate --runs r.trec --qrels
 * q.txt`, `bm25 index --colection c.jsonl --index i/`): commander checks required options before
 * unknown ones, so it answered "required option '--run <file>' not specified" and never named the
 * typo. The CLI's error output asks `unknownOptionError` first: when argv holds a long option the
 * command it selects does not know, that option is the error, with the nearest known one, as
 * commander words it for commands without required options.
 */
import type { Command } from "commander";
import { nearestNames } from "../engine/nearest.ts";

function longOptions(c: Command): string[] {
  return c.options.flatMap((o) => (o.long !== undefined ? [o.long] : []));
}

/** The first `--option` of argv that the command it selects (`bm25 index ...`: index under bm25) and its ancestors do not know. */
export function firstUnknownOption(program: Command, argv: readonly string[]): { flag: string; known: string[] } | undefined {
  let command = program;
  const known = ["--help", ...longOptions(program)];
  for (const arg of argv) {
    if (arg === "--") return undefined;
    if (!arg.startsWith("--")) {
      const sub = command.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
      if (sub !== undefined) {
        command = sub;
        known.push(...longOptions(sub));
      }
      continue;
    }
    const flag = arg.split("=", 1)[0]!;
    if (!known.includes(flag)) return { flag, known };
  }
  return undefined;
}

/** Commander's unknown-option error for argv's first unknown option, or undefined when it has none. */
export function unknownOptionError(program: Command, argv: readonly string[]): string | undefined {
  const unknown = firstUnknownOption(program, argv);
  if (unknown === undefined) return undefined;
  const near = nearestNames(unknown.flag, unknown.known, 1);
  return `error: unknown option '${unknown.flag}'${near.length > 0 ? `\n(Did you mean ${near[0]}?)` : ""}\n`;
}
