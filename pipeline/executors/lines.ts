/** Text helpers every executor uses on a program's output (pure). */

/** Replace every secret value in `text` by `***` (longest first, so a secret containing another is hidden whole). */
export function redactor(secrets: Readonly<Record<string, string>>): (text: string) => string {
  const values = Object.values(secrets)
    .filter((v) => v.length > 0)
    .sort((a, b) => b.length - a.length);
  return (text) => values.reduce((t, v) => t.split(v).join("***"), text);
}

/** Lines of `text` (CRLF or LF), without a trailing empty one. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}
