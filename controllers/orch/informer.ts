import type { KubernetesObject } from '@kubernetes/client-node';
import { BehaviorSubject, Observable, Subject, type Subscriber, type TeardownLogic } from 'rxjs';
import { systemClock, type Clock } from '../../core/index.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import { OrchApiError, type OrchTransport, type RawWatchEvent } from './orch-client.js';
import { objectKey, resourcePath, type OrchResource } from './orch-resource.js';

/** The kinds of change an informer reports. */
export const INFORMER_EVENT_TYPES = ['added', 'updated', 'deleted'] as const;
export type InformerEventType = (typeof INFORMER_EVENT_TYPES)[number];

/** One change to one object, as the informer's cache saw it. */
export interface InformerEvent<T extends KubernetesObject> {
  readonly type: InformerEventType;
  /** `namespace/name`, or `name` for cluster-scoped objects. */
  readonly key: string;
  /** The new object; for `deleted`, the last state seen. */
  readonly object: T;
  /** For `updated`, the object the cache held before. */
  readonly oldObject?: T;
  /** The object's `metadata.resourceVersion`. */
  readonly resourceVersion: string;
}

/** What went wrong in the list+watch loop; the informer retries after `retryInMs` (0: relists at once). */
export interface InformerError {
  readonly resource: string;
  readonly phase: 'list' | 'watch';
  readonly error: unknown;
  readonly retryInMs: number;
}

/** Options of an {@link Informer}. */
export interface InformerOptions {
  /** Watch only this namespace (`MESH_WATCH_NAMESPACE`); ignored for cluster-scoped resources. */
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  /** Backoff between failed lists or watches; default 800 ms doubling to 30 s. */
  readonly backoff?: BackoffOptions;
  /** Time of the retry backoff and the watch watchdog; default {@link systemClock}. */
  readonly clock?: Clock;
  /** Server-side watch timeout per watch request; default a random 300-600 s, as client-go. */
  readonly watchTimeoutSeconds?: number;
  /** List page size; default 500. */
  readonly pageSize?: number;
  /** Told of every failed list or watch (the informer itself logs nothing and keeps retrying). */
  readonly onError?: (error: InformerError) => void;
}

interface ListAnswer<T> {
  readonly metadata?: { resourceVersion?: string; continue?: string };
  readonly items?: T[];
}

/** How long past its server-side timeout a watch may stay open before it is presumed dead. */
const WATCHDOG_GRACE_SECONDS = 60;

/** A watch that must be restarted with a fresh list (HTTP 410 Gone / `Expired`). */
class WatchExpiredError extends Error {
  override readonly name = 'WatchExpiredError';
}

const isGone = (err: unknown): boolean => err instanceof WatchExpiredError || (err instanceof OrchApiError && err.status === 410);

/**
 * A shared informer over list+watch as an RxJS Observable of {@link InformerEvent}s.
 *
 * One list+watch loop runs while at least one subscriber is subscribed, however many there are; it stops
 * (aborting the watch) when the last one unsubscribes. A new subscriber first receives an `added` event
 * for every object already in the cache, then live events. Watches resume from the last resourceVersion
 * seen (bookmarks included); a 410 Gone relists and reports the difference from the cache as events, so
 * subscribers converge to the server's state. Failures retry with capped exponential backoff; the stream
 * itself never errors.
 */
export class Informer<T extends KubernetesObject> extends Observable<InformerEvent<T>> {
  readonly #client: OrchTransport;
  readonly #resource: OrchResource;
  readonly #options: InformerOptions;
  readonly #clock: Clock;
  readonly #path: string;
  readonly #events = new Subject<InformerEvent<T>>();
  readonly #synced = new BehaviorSubject<boolean>(false);
  #cache = new Map<string, T>();
  #subscribers = 0;
  #abort: AbortController | undefined;
  #resourceVersion: string | undefined;

  constructor(client: OrchTransport, resource: OrchResource, options: InformerOptions = {}) {
    // NOTE: `this` cannot be captured before super() returns, so the subscribe function goes through a holder.
    const holder: { informer?: Informer<T> } = {};
    super((subscriber) => holder.informer!.#subscribe(subscriber));
    holder.informer = this;
    this.#client = client;
    this.#resource = resource;
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#path = resourcePath(resource, options.namespace);
  }

  /** The collection path this informer lists and watches. */
  get path(): string {
    return this.#path;
  }

  /** True once the first list has been applied (and until the informer stops). */
  get synced$(): Observable<boolean> {
    return this.#synced.asObservable();
  }

  /** Whether the cache holds a complete list. */
  hasSynced(): boolean {
    return this.#synced.value;
  }

  /** The cached object with this key (`namespace/name` or `name`). */
  get(key: string): T | undefined {
    return this.#cache.get(key);
  }

  /** Every cached object. */
  list(): T[] {
    return [...this.#cache.values()];
  }

  /** Whether the list+watch loop is running (some subscriber is subscribed). */
  get running(): boolean {
    return this.#abort !== undefined;
  }

  /** The resourceVersion the next watch resumes from, if any. */
  get resourceVersion(): string | undefined {
    return this.#resourceVersion;
  }

  #subscribe(subscriber: Subscriber<InformerEvent<T>>): TeardownLogic {
    this.#acquire();
    for (const [key, object] of this.#cache) {
      subscriber.next({ type: 'added', key, object, resourceVersion: object.metadata?.resourceVersion ?? '' });
    }
    const subscription = this.#events.subscribe(subscriber);
    return () => {
      subscription.unsubscribe();
      this.#release();
    };
  }

  #acquire(): void {
    this.#subscribers += 1;
    if (this.#subscribers === 1) {
      const abort = new AbortController();
      this.#abort = abort;
      void this.#run(abort.signal);
    }
  }

  #release(): void {
    this.#subscribers -= 1;
    if (this.#subscribers === 0) {
      this.#abort?.abort();
      this.#abort = undefined;
      this.#cache = new Map();
      this.#resourceVersion = undefined;
      this.#synced.next(false);
    }
  }

  async #run(signal: AbortSignal): Promise<void> {
    const backoff = new Backoff(this.#options.backoff);
    // NOTE: the backoff keeps the process alive: while the API server is down, a retry may be all that is pending.
    const sleep = (ms: number, s: AbortSignal): Promise<void> => this.#clock.sleep(ms, s, { keepAlive: true });
    let lastWasGone = false;
    while (!signal.aborted) {
      let phase: InformerError['phase'] = 'list';
      const progress = { received: false };
      try {
        if (this.#resourceVersion === undefined) {
          await this.#relist(signal);
          backoff.reset();
        }
        phase = 'watch';
        await this.#watchOnce(signal, progress);
        if (progress.received) {
          backoff.reset();
          lastWasGone = false;
        } else if (!signal.aborted) {
          // NOTE: a watch that ends without a single event may be a server closing at once: do not spin.
          await sleep(backoff.next(), signal);
        }
      } catch (err) {
        if (signal.aborted) return;
        if (progress.received) lastWasGone = false;
        const gone = isGone(err);
        if (gone) this.#resourceVersion = undefined;
        // NOTE: relist at once after a 410, but back off when the fresh list's watch expires again at once.
        const retryInMs = gone && !lastWasGone ? 0 : backoff.next();
        lastWasGone = gone;
        this.#options.onError?.({ resource: this.#path, phase, error: err, retryInMs });
        if (retryInMs > 0) {
          try {
            await sleep(retryInMs, signal);
          } catch {
            return;
          }
        }
      }
    }
  }

  /** Lists every page, then replaces the cache, emitting the differences. */
  async #relist(signal: AbortSignal): Promise<void> {
    const items = new Map<string, T>();
    let continueToken: string | undefined;
    let resourceVersion = '';
    do {
      const page = await this.#client.request<ListAnswer<T>>('GET', this.#path, {
        query: {
          labelSelector: this.#options.labelSelector,
          fieldSelector: this.#options.fieldSelector,
          limit: this.#options.pageSize ?? 500,
          continue: continueToken,
        },
        signal,
      });
      for (const item of page.items ?? []) items.set(objectKey(item), this.#withKind(item));
      continueToken = page.metadata?.continue || undefined;
      resourceVersion = page.metadata?.resourceVersion ?? '';
    } while (continueToken !== undefined);
    if (signal.aborted) return;
    const previous = this.#cache;
    this.#cache = items;
    this.#resourceVersion = resourceVersion;
    for (const [key, object] of items) {
      const old = previous.get(key);
      if (!old) this.#emit('added', key, object);
      else if (old.metadata?.resourceVersion !== object.metadata?.resourceVersion) this.#emit('updated', key, object, old);
    }
    for (const [key, old] of previous) {
      if (!items.has(key)) this.#emit('deleted', key, old);
    }
    if (!this.#synced.value) this.#synced.next(true);
  }

  /** Runs one watch until the server ends it; sets `progress.received` when an object or bookmark arrives. */
  #watchOnce(signal: AbortSignal, progress: { received: boolean }): Promise<void> {
    const timeout = this.#options.watchTimeoutSeconds ?? Math.floor(300 + Math.random() * 300);
    const query = {
      resourceVersion: this.#resourceVersion,
      allowWatchBookmarks: true,
      timeoutSeconds: timeout,
      labelSelector: this.#options.labelSelector,
      fieldSelector: this.#options.fieldSelector,
    };
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) {
        resolve();
        return;
      }
      // NOTE: the server ends every watch at `timeoutSeconds`; one still open well after that sits on a
      // dead connection (e.g. a network partition) and is dropped so that the loop reconnects.
      const cancelWatchdog = this.#clock.setTimer(() => {
        subscription.unsubscribe();
        signal.removeEventListener('abort', onAbort);
        reject(new Error(`watch ${this.#path} outlived its ${timeout} s timeout: connection presumed dead`));
      }, (timeout + WATCHDOG_GRACE_SECONDS) * 1000);
      const onAbort = (): void => {
        cancelWatchdog();
        subscription.unsubscribe();
        resolve();
      };
      const subscription = this.#client.watch(this.#path, query).subscribe({
        next: (event) => {
          try {
            this.#apply(event);
            progress.received = true;
          } catch (err) {
            cancelWatchdog();
            subscription.unsubscribe();
            signal.removeEventListener('abort', onAbort);
            reject(err);
          }
        },
        error: (err: unknown) => {
          cancelWatchdog();
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
        complete: () => {
          cancelWatchdog();
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      });
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  #apply(event: RawWatchEvent): void {
    if (event.type === 'ERROR') {
      const status = event.object as { code?: number; reason?: string; message?: string };
      const detail = `${status.reason ?? ''} ${status.message ?? ''}`.trim();
      if (status.code === 410 || status.reason === 'Expired' || status.reason === 'Gone') {
        throw new WatchExpiredError(`watch ${this.#path} expired: ${detail}`);
      }
      throw new OrchApiError(status.code ?? 500, status.reason ?? '', 'WATCH', this.#path, status.message ?? detail);
    }
    const object = this.#withKind(event.object as T);
    const resourceVersion = object.metadata?.resourceVersion;
    if (resourceVersion) this.#resourceVersion = resourceVersion;
    if (event.type === 'BOOKMARK') return;
    const key = objectKey(object);
    const old = this.#cache.get(key);
    if (event.type === 'DELETED') {
      if (!old) return;
      this.#cache.delete(key);
      this.#emit('deleted', key, object);
      return;
    }
    if (old && old.metadata?.resourceVersion === resourceVersion) return;
    this.#cache.set(key, object);
    if (old) this.#emit('updated', key, object, old);
    else this.#emit('added', key, object);
  }

  /** List items carry no kind; set it so every object in the cache is self-describing. */
  #withKind(object: T): T {
    if (object.kind && object.apiVersion) return object;
    const group = this.#resource.group;
    const apiVersion = group === '' ? this.#resource.version : `${group}/${this.#resource.version}`;
    return { ...object, kind: this.#resource.kind, apiVersion };
  }

  #emit(type: InformerEventType, key: string, object: T, oldObject?: T): void {
    const resourceVersion = object.metadata?.resourceVersion ?? '';
    this.#events.next(oldObject ? { type, key, object, oldObject, resourceVersion } : { type, key, object, resourceVersion });
  }
}
