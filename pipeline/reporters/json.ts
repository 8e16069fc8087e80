/** One JSON object per line (`--json`), with a timestamp. */
import type { EngineEvent } from "../engine/events.ts";

export function jsonReporter(write: (line: string) => void): (e: EngineEvent) => void {
  return (e) => write(JSON.stringify({ time: new Date().toISOString(), ...e }));
}
