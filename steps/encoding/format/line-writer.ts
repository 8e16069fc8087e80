/**
 * A text file of one line per row (a token directory's pids.txt, a token matrix's row ids),
 * written in batches of 4096 lines, one write each, so a collection-sized file costs few writes
 * and little memory.
 */
import { closeSync, openSync, writeSync } from "node:fs";

const BATCH = 4096;

export class LineWriter {
  private readonly fd: number;
  private pending: string[] = [];

  constructor(readonly path: string) {
    this.fd = openSync(path, "w");
  }

  /** Adds a line (without its "\n"); a full batch is written at once. */
  push(line: string): void {
    this.pending.push(line);
    if (this.pending.length === BATCH) this.flush();
  }

  /** Writes the lines not yet written. */
  flush(): void {
    if (this.pending.length > 0) writeSync(this.fd, this.pending.join("\n") + "\n");
    this.pending = [];
  }

  /** Closes the file; lines pushed since the last flush are dropped (call flush first when the rows are complete). */
  close(): void {
    closeSync(this.fd);
  }
}
