/**
 * What the config sources currently refuse, for `/debug/rejectedz`: one entry per rejected object (or
 * unreadable file/document), with the reason, since when it is refused, and which earlier valid version
 * is still served in its place. Each source replaces its own entries after every change it sees; the
 * list is the sum.
 */

/** One current rejection. */
export interface RejectedConfigEntry {
  /** Which source refused it: `config-dir` or `crd`. */
  readonly source: string;
  /** `Kind namespace/name`, or `unknown` when the document does not say. */
  readonly object: string;
  /** Where the bad version is: `vs.yaml document 2`, or `resourceVersion 1234`. */
  readonly location: string;
  /** Every error, `field: message`, joined by `; `. */
  readonly reason: string;
  /** ISO time this bad version was first seen. */
  readonly since: string;
  /** The last valid version still served instead (`vs.yaml document 2 (version 3f2a...)`), or null: nothing is served. */
  readonly served: string | null;
}

/** See the file comment. */
export class RejectedConfigs {
  readonly #bySource = new Map<string, readonly RejectedConfigEntry[]>();

  /** Replaces every entry of `source`. */
  replace(source: string, entries: readonly RejectedConfigEntry[]): void {
    if (entries.length === 0) this.#bySource.delete(source);
    else this.#bySource.set(source, entries);
  }

  /** Every current entry, by source, then object. */
  list(): RejectedConfigEntry[] {
    return [...this.#bySource.keys()].sort().flatMap((s) => [...this.#bySource.get(s)!].sort((a, b) => a.object.localeCompare(b.object) || a.location.localeCompare(b.location)));
  }
}
