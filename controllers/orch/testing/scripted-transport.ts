import { Observable, Subject } from 'rxjs';
import type { OrchQuery, OrchRequestOptions, OrchTransport, RawWatchEvent } from '../orch-client.js';

/** One watch the informer opened on a {@link ScriptedTransport}. */
export interface ScriptedWatch {
  readonly path: string;
  readonly query: OrchQuery;
  /** Push events, complete or error the watch from the test. */
  readonly events: Subject<RawWatchEvent>;
  /** True once the informer unsubscribed. */
  closed: boolean;
}

/** A list answer: items plus the list's resourceVersion. */
export interface ScriptedList {
  readonly resourceVersion: string;
  readonly items: readonly object[];
}

/**
 * A fake orchestrator transport for informer unit tests: lists answer the test's current `list` (or throw
 * `listError` once), and each watch is a Subject the test drives.
 */
export class ScriptedTransport implements OrchTransport {
  list: ScriptedList = { resourceVersion: '1', items: [] };
  listError: Error | undefined;
  readonly lists: OrchQuery[] = [];
  readonly watches: ScriptedWatch[] = [];

  async request<T>(method: string, path: string, options: OrchRequestOptions = {}): Promise<T> {
    if (method !== 'GET') throw new Error(`ScriptedTransport: unexpected ${method} ${path}`);
    this.lists.push(options.query ?? {});
    const error = this.listError;
    this.listError = undefined;
    if (error) throw error;
    return { metadata: { resourceVersion: this.list.resourceVersion }, items: [...this.list.items] } as T;
  }

  watch(path: string, query: OrchQuery): Observable<RawWatchEvent> {
    const events = new Subject<RawWatchEvent>();
    const watch: ScriptedWatch = { path, query, events, closed: false };
    this.watches.push(watch);
    return new Observable<RawWatchEvent>((subscriber) => {
      const subscription = events.subscribe(subscriber);
      return () => {
        watch.closed = true;
        subscription.unsubscribe();
      };
    });
  }

  /** The watch opened last. */
  lastWatch(): ScriptedWatch {
    const watch = this.watches.at(-1);
    if (!watch) throw new Error('no watch was opened');
    return watch;
  }
}
