// The config and registry sources of one meshd, merged, with their first sync tracked: each source emits
// its first batch once it has read everything (files scanned, informers listed), even when empty. meshd
// answers /ready only after every source has done so, as istiod waits for its caches.
import { merge, tap, type Observable } from 'rxjs';
import type { ModelInput } from '../core/index.js';

/** Named sources merged into one stream of batches. */
export interface SourceSet {
  readonly inputs$: Observable<readonly ModelInput[]>;
  /**
   * Resolves once every source has emitted its first batch (while `inputs$` is subscribed). It resolves
   * in a microtask after that batch, so a consumer applying batches synchronously has applied it.
   */
  readonly synced: Promise<void>;
  /** Sources that have not emitted their first batch yet, in the order given. */
  unsynced(): string[];
}

/** Merges `named` sources; see SourceSet. */
export function mergeSources(named: Readonly<Record<string, Observable<readonly ModelInput[]>>>): SourceSet {
  const waiting = new Set(Object.keys(named));
  let resolve!: () => void;
  const synced = new Promise<void>((r) => {
    resolve = r;
  });
  if (waiting.size === 0) resolve();
  const inputs$ = merge(
    ...Object.entries(named).map(([name, source$]) =>
      source$.pipe(
        tap(() => {
          if (waiting.delete(name) && waiting.size === 0) resolve();
        }),
      )),
  );
  return { inputs$, synced, unsynced: () => [...waiting] };
}
