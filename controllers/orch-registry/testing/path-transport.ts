import { Observable, Subject } from 'rxjs';
import { OrchApiError, type OrchQuery, type OrchRequestOptions, type OrchTransport, type RawWatchEvent } from '../../orch/index.js';

/**
 * A fake orchestrator transport keyed by collection path, for tests of code that runs several informers:
 * `lists.set(path, items)` scripts a list (a path with no list answers 404, like a missing CRD), and
 * `emit(path, event)` drives the open watch of that path.
 */
export class PathTransport implements OrchTransport {
  readonly lists = new Map<string, readonly object[]>();
  readonly #watches = new Map<string, Subject<RawWatchEvent>>();
  #rv = 100;

  async request<T>(method: string, path: string, _options: OrchRequestOptions = {}): Promise<T> {
    if (method !== 'GET') throw new Error(`PathTransport: unexpected ${method} ${path}`);
    const items = this.lists.get(path);
    if (!items) throw new OrchApiError(404, 'NotFound', method, path, 'the server could not find the requested resource');
    return { metadata: { resourceVersion: String(this.#rv) }, items: [...items] } as T;
  }

  watch(path: string, _query: OrchQuery): Observable<RawWatchEvent> {
    let subject = this.#watches.get(path);
    if (!subject) this.#watches.set(path, (subject = new Subject()));
    const s = subject;
    return new Observable<RawWatchEvent>((subscriber) => s.subscribe(subscriber));
  }

  /** Whether a watch of `path` is open. */
  watching(path: string): boolean {
    return (this.#watches.get(path)?.observed ?? false);
  }

  /** Sends one watch event on `path`, giving the object the next resourceVersion. */
  emit(path: string, type: RawWatchEvent['type'], object: { metadata?: Record<string, unknown> } & Record<string, unknown>): void {
    this.#rv += 1;
    const subject = this.#watches.get(path);
    if (!subject) throw new Error(`PathTransport: no watch of ${path}`);
    subject.next({ type, object: { ...object, metadata: { ...object.metadata, resourceVersion: String(this.#rv) } } });
  }
}
