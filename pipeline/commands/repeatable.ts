/**
 * The parser of a repeatable commander option (`--set a=1 --set b=2`, `--run x --run y`): each
 * occurrence appends its value to the array of the ones before. `previous` is undefined for the
 * first occurrence of an option declared without a default (evaluate's required `--run`), which
 * must stay without one so that commander still reports it missing.
 */
export function repeatable(value: string, previous: readonly string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
