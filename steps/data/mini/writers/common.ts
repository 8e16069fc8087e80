/** Shared pieces of the per-dataset writers. */
import type { World } from "../world.ts";
import type { Passage } from "../entities.ts";
import type { Conversation, Turn } from "../conversations.ts";
import type { MiniDatasetName, Split } from "../params.ts";
import { collectionSize, streamCollection } from "../world.ts";
import { LineSink } from "../io.ts";

export interface WriteOptions {
  readonly onProgress?: (done: number, total?: number) => void;
}

export interface MiniWriter {
  readonly name: MiniDatasetName;
  /** Writes the dataset under `outDir`; returns the written files relative to `outDir`. */
  write(world: World, outDir: string, options: WriteOptions): Promise<string[]>;
}

export function conversationsOf(world: World, split: Split): readonly Conversation[] {
  return world.conversations.filter((c) => c.split === split);
}

export function qid(c: Conversation, t: Turn): string {
  return `${c.convNo}_${t.turnNo}`;
}

export function passageOf(world: World, id: string): Passage {
  const p = world.passageById.get(id);
  if (p === undefined) throw new Error(`passage ${id} is not in the world's pool`);
  return p;
}

/** Streams the collection through `render` into one file per `perFile` lines (paths from `pathOf`). */
export async function writeCollection(
  world: World, outDir: string, pathOf: (part: number) => string, perFile: number,
  render: (p: Passage) => string, options: WriteOptions, header?: string,
): Promise<string[]> {
  const total = collectionSize(world);
  const files: string[] = [];
  let sink: LineSink | undefined;
  let done = 0;
  const every = Math.max(1, Math.floor(total / 100));
  for (const p of streamCollection(world)) {
    if (done % perFile === 0) {
      if (sink !== undefined) await sink.close();
      const rel = pathOf(files.length);
      files.push(rel);
      sink = await LineSink.open(`${outDir}/${rel}`);
      if (header !== undefined) await sink.writeLine(header);
    }
    await (sink as LineSink).writeLine(render(p));
    done++;
    if (options.onProgress !== undefined && (done % every === 0 || done === total)) options.onProgress(done, total);
  }
  if (sink !== undefined) await sink.close();
  return files;
}
