/**
 * Following a job's output file as Slurm's node appends to it: each call reads what was
 * added since the last one and hands over complete lines (UTF-8 split across reads is
 * decoded whole). A file that does not exist yet (the job is pending) reads as empty.
 */
import { open } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";

export class FileFollower {
  private offset = 0;
  private partial = "";
  private readonly decoder = new StringDecoder("utf8");
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly onLine: (line: string) => void,
  ) {}

  /** Read what was appended; with `final`, also the last line without a newline. Calls are serialised. */
  read(final = false): Promise<void> {
    this.reading = this.reading.then(() => this.readNow(final));
    return this.reading;
  }

  private async readNow(final: boolean): Promise<void> {
    const fh = await open(this.path, "r").catch(() => undefined);
    if (fh) {
      try {
        const buf = Buffer.alloc(64 * 1024);
        for (;;) {
          const { bytesRead } = await fh.read(buf, 0, buf.length, this.offset);
          if (bytesRead === 0) break;
          this.offset += bytesRead;
          this.emit(this.decoder.write(buf.subarray(0, bytesRead)));
        }
      } finally {
        await fh.close();
      }
    }
    if (final) {
      const rest = this.partial + this.decoder.end();
      this.partial = "";
      if (rest !== "") this.onLine(rest.replace(/\r$/, ""));
    }
  }

  private emit(text: string): void {
    const lines = (this.partial + text).split("\n");
    this.partial = lines.pop()!;
    for (const l of lines) this.onLine(l.replace(/\r$/, ""));
  }
}
