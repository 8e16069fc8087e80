/**
 * What a run trusts of the store: an entry is used only while its manifest is readable and
 * its outputs' bytes are the ones the manifest records (checked with stat stamps, or fully
 * re-hashed with --verify). An entry that fails is moved aside into `damaged/` (a
 * `tampered` event says which outputs and where it went) and treated as absent, so the
 * engine recomputes it.
 */
import type { AnyStep } from "./step.ts";
import type { Entry, Store } from "./store.ts";
import type { EventSink } from "./events.ts";

export class EntryGuard {
  /** Checks in flight, by entry key: concurrent consumers of one producer share one check. */
  private readonly checking = new Map<string, Promise<boolean>>();
  /** Entries already found damaged (and moved aside) in this run. */
  private readonly rejected = new WeakSet<Entry>();
  /** Entries checked (or published) by this run. */
  private readonly checked = new WeakSet<Entry>();

  constructor(
    private readonly store: Store,
    private readonly emit: EventSink,
    /** Re-hash every cached entry the run resolves (--verify). */
    private readonly verify: boolean,
  ) {}

  private async reject(step: AnyStep, stepId: string, key: string, outputs: readonly string[], problem: string): Promise<void> {
    const movedTo = await this.store.quarantine(stepId, key, problem);
    const ev: { type: "tampered"; step: string; key: string; outputs: readonly string[]; problem: string; movedTo?: string } = { type: "tampered", step: step.name, key, outputs, problem };
    if (movedTo !== undefined) ev.movedTo = movedTo;
    this.emit(ev);
  }

  /**
   * The complete, intact entry for `key`, or undefined (absent, or damaged and now moved aside).
   * `known`: the entry for `key` a plan of this run read moments ago. Entries are immutable, so
   * its outputs are checked against its manifest without reading that again; only when they do
   * not match (the entry was removed, or replaced, since) is the store read afresh.
   */
  async lookup(step: AnyStep, key: string, known?: Entry): Promise<Entry | undefined> {
    if (known !== undefined && known.key === key && known.stepId === step.def.id && !this.rejected.has(known)) {
      if (this.checked.has(known)) return known;
      // No rejection on failure: the plan's copy may just be out of date; the fresh look below decides.
      if ((await this.store.content.check(known, { full: this.verify })).length === 0) {
        this.checked.add(known);
        return known;
      }
    }
    const found = await this.store.inspect(step.def.id, key);
    if (found === undefined) return undefined;
    if ("damaged" in found) {
      const d = found.damaged;
      await this.reject(step, d.stepId, d.key, ["manifest.json"], `${d.file}: ${d.problem}`);
      return undefined;
    }
    return (await this.intact(step, found.entry, this.verify)) ? found.entry : undefined;
  }

  /** An entry this run has just published. */
  vouch(entry: Entry): void {
    this.checked.add(entry);
  }

  /** Did this run check (or publish) `entry` already? */
  wasChecked(entry: Entry): boolean {
    return this.checked.has(entry);
  }

  /** Are `entry`'s outputs still the bytes its manifest records? If not, it is moved aside. */
  intact(step: AnyStep, entry: Entry, full = false): Promise<boolean> {
    if (this.rejected.has(entry)) return Promise.resolve(false);
    const id = `${entry.dir}\0${full}`;
    let p = this.checking.get(id);
    if (p === undefined) {
      p = (async () => {
        const bad = await this.store.content.check(entry, { full });
        if (bad.length === 0) {
          this.checked.add(entry);
          return true;
        }
        this.rejected.add(entry);
        await this.reject(step, entry.stepId, entry.key, bad, `outputs ${bad.join(", ")} no longer match the digests recorded when the entry was published`);
        return false;
      })().finally(() => this.checking.delete(id));
      this.checking.set(id, p);
    }
    return p;
  }
}
