/**
 * `params <target>`: every hyperparameter `run <target> --set <path>=<value>` may override, with
 * its type and range, its value for `--data` and the target's profile, and a one-line meaning.
 * `--json` prints the same as one JSON document. The listing comes from the target's parameter
 * space (e.g. definitions/dense/parameters.ts), the one description `--set` is validated against.
 */
import type { Command } from "commander";
import type { ParameterInfo } from "../engine/targets.ts";
import type { Project } from "../session.ts";
import { describeFailure } from "../engine/failures.ts";
import { formatValue } from "../definitions/overrides.ts";

export interface ParamsDocument {
  readonly schema: "cspipe.params/1";
  readonly target: string;
  readonly data: string;
  readonly space: string;
  readonly parameters: readonly ParameterInfo[];
}

/** A wildcard that sets several of these parameters at once (`schedule.*.epochs=30`), from the first that has one. */
function wildcardExample(params: readonly ParameterInfo[]): string | undefined {
  for (const p of params) {
    const segs = p.path.split(".");
    if (segs.length !== 3) continue;
    const pattern = `${segs[0]}.*.${segs[2]}`;
    if (params.filter((q) => q.path.startsWith(`${segs[0]}.`) && q.path.endsWith(`.${segs[2]}`) && q.path.split(".").length === 3).length > 1) return `${pattern}=${formatValue(p.value)}`;
  }
  return undefined;
}

/** The listing as aligned text: path, type, value, description; then how wildcards work. Pure. */
export function paramsText(doc: ParamsDocument): string {
  // The examples name parameters of this target (the DCSR targets have dcsr.seeds, not seeds; the lexical ones no schedule).
  const list = doc.parameters.find((p) => typeof p.value === "object")?.path;
  const wildcard = wildcardExample(doc.parameters);
  const rows = doc.parameters.map((p) => [p.path, p.type, formatValue(p.value), p.description]);
  const head = ["path", "type", "value", "description"];
  const width = [0, 1, 2].map((i) => Math.max(head[i]!.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]) => [0, 1, 2].map((i) => r[i]!.padEnd(width[i]!)).join("  ") + "  " + r[3];
  return [
    `${doc.target}: ${doc.parameters.length} parameters of ${doc.space}, values for --data ${doc.data}`,
    line(head),
    ...rows.map(line),
    "",
    `Override with: run ${doc.target} --set <path>=<value> (repeatable${wildcard === undefined ? "" : `; '*' stands for one segment, e.g. --set '${wildcard}'`}${list === undefined ? "" : `; lists are comma-separated, e.g. --set ${list}=1,2`}).`,
  ].join("\n") + "\n";
}

export interface ParamsCommandIO {
  readonly project: () => Promise<Project>;
  readonly out: (text: string) => void;
  readonly err: (line: string) => void;
  readonly setExitCode: (code: number) => void;
}

export function registerParamsCommand(program: Command, io: ParamsCommandIO): void {
  program
    .command("params")
    .description("the hyperparameters 'run <target> --set <path>=<value>' overrides: type, current value (for --data) and meaning")
    .argument("<target>")
    .option("--json", "one JSON document", false)
    .action(async (target: string, flags: { json: boolean }) => {
      const p = await io.project();
      const t = p.targets.get(target);
      if (t === undefined) {
        io.err(`error: ${describeFailure({ reason: "unknown-target", target, known: p.targets.names() })}`);
        io.setExitCode(2);
        return;
      }
      if (t.parameters === undefined) {
        const takers = p.targets.list().filter((x) => x.parameters !== undefined).map((x) => x.name);
        io.err(`error: target '${target}' takes no --set overrides (its steps read no typed setup). Targets that do: ${takers.join(", ") || "none"}`);
        io.setExitCode(2);
        return;
      }
      const doc: ParamsDocument = { schema: "cspipe.params/1", target, data: p.data, space: t.parameters.name, parameters: t.parameters.describe({ data: p.data }) };
      io.out(flags.json ? JSON.stringify(doc) + "\n" : paramsText(doc));
    });
}
