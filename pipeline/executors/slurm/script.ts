/**
 * The batch script of one attempt (pure). Readable, and runnable again by hand with `sbatch`:
 *
 *   #!/bin/bash
 *   #SBATCH --job-name=...        one line per flag: placement, resources, output, no requeue
 *   (clear the environment Slurm built: it loads the login environment even with --export=NONE;
 *    keep SLURM_*, and for a GPU job the devices Slurm assigned)
 *   export NAME='value'           exactly the environment the program gets locally
 *   ('node' ... exec-step --numerics: a program step's numerics checked on its node first)
 *   'argv0' 'arg1' ...            the program
 *   (write its exit status to <attempt>/exitcode.tmp, rename it to exitcode: atomic on NFS)
 *
 * Secrets are not written here: they reach the job through sbatch's own environment
 * (`--export=<names>`) and are kept when the environment is cleared.
 */

export interface BatchScript {
  /** Identifies the script (a comment line): step, key, attempt. */
  readonly title: string;
  /** `--flag=value` items, each an `#SBATCH` line. */
  readonly flags: readonly string[];
  /** Variables the script sets. */
  readonly env: Readonly<Record<string, string>>;
  /** Variables the job keeps from Slurm besides SLURM_* (a GPU job's devices, secrets). */
  readonly keep: readonly string[];
  readonly argv: readonly string[];
  /**
   * A command that must succeed before the program runs (the numerics check), run in `cwd`; when it
   * fails, its status is the job's and the exit-code file says "preflight <status>".
   */
  readonly preflight?: { readonly argv: readonly string[]; readonly cwd: string };
  /** The attempt's directory: `exitcode` is written there. */
  readonly attemptDir: string;
}

/** The variables Slurm sets for a job's GPUs (kept in a GPU job; the program must see Slurm's devices). */
export const SLURM_GPU_VARIABLES = ["CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK"] as const;

/** Quote for bash: a single-quoted word. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A name bash can export. */
export const exportable = (name: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);

export function batchScript(s: BatchScript): string {
  for (const f of s.flags) if (/[\r\n]/.test(f)) throw new Error(`sbatch flag with a line break: ${JSON.stringify(f)}`);
  const keep = ["SLURM_*", "SLURMD_*", ...s.keep.filter(exportable)].join("|");
  const names = Object.keys(s.env)
    .filter(exportable)
    .sort();
  const exit = shellQuote(`${s.attemptDir}/exitcode`);
  return [
    "#!/bin/bash",
    ...s.flags.map((f) => `#SBATCH ${f}`),
    `# ${s.title.replace(/[\r\n]/g, " ")}`,
    "# Written by cspipe (pipeline/executors/slurm/script.ts). The environment below is the program's, exactly.",
    "for _cspipe_v in $(compgen -e); do",
    `  case "$_cspipe_v" in ${keep}) ;; *) unset "$_cspipe_v" 2>/dev/null ;; esac`,
    "done",
    "unset _cspipe_v",
    ...names.map((n) => `export ${n}=${shellQuote(s.env[n]!)}`),
    ...(s.preflight === undefined
      ? [s.argv.map(shellQuote).join(" "), "_cspipe_rc=$?"]
      : [
          `(cd ${shellQuote(s.preflight.cwd)} && ${s.preflight.argv.map(shellQuote).join(" ")})`,
          "_cspipe_rc=$?",
          'if [ "$_cspipe_rc" = 0 ]; then',
          `  ${s.argv.map(shellQuote).join(" ")}`,
          "  _cspipe_rc=$?",
          "else",
          "  _cspipe_phase='preflight '",
          "fi",
        ]),
    `printf '%s%s\\n' "$_cspipe_phase" "$_cspipe_rc" > ${shellQuote(`${s.attemptDir}/exitcode.tmp`)} && command -p mv -f ${shellQuote(`${s.attemptDir}/exitcode.tmp`)} ${exit}`,
    'exit "$_cspipe_rc"',
    "",
  ].join("\n");
}

/** What an exit-code file holds: the program's exit status, or the preflight's when it failed; undefined when it holds neither. */
export function parseExitCode(text: string): { code: number; phase: "program" | "preflight" } | undefined {
  const m = /^(preflight )?(\d{1,3})$/.exec(text.trim());
  return m ? { code: Number(m[2]), phase: m[1] ? "preflight" : "program" } : undefined;
}
