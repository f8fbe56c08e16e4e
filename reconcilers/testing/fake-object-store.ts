import { Observable } from 'rxjs';
import type { Clock } from '../../core/index.js';
import { OrchApiError, type OrchQuery, type OrchRequestOptions, type OrchTransport, type RawWatchEvent } from '../../controllers/index.js';

/** How a fake transport treats a request. */
export type TransportMode = 'ok' | 'fail' | 'hang';

interface StoredObject {
  metadata: { name: string; resourceVersion?: string; [field: string]: unknown };
  [field: string]: unknown;
}

/**
 * An in-memory object store with the API server's optimistic concurrency for GET, POST and PUT of single
 * objects (409 on a stale resourceVersion or an existing name, 404 on a missing one). For unit tests of
 * code that reads and writes whole objects, such as leases; it serves no lists or watches.
 */
export class FakeObjectStore {
  readonly #objects = new Map<string, StoredObject>();
  #version = 0;
  /** Every write, as `METHOD path`. */
  readonly writes: string[] = [];

  /** The stored object at `path`. */
  get(path: string): StoredObject | undefined {
    const object = this.#objects.get(path);
    return object && structuredClone(object);
  }

  /**
   * A transport over this store. `mode()` decides each request: `ok` serves it; `fail` fails it at once
   * with a network error; `hang` answers nothing until the request's `timeoutMs` has passed on `clock`
   * (or its signal aborts), as a dead connection would.
   */
  transport(mode: () => TransportMode = () => 'ok', clock?: Clock): OrchTransport {
    return {
      request: async <T>(method: string, path: string, options: OrchRequestOptions = {}): Promise<T> => {
        await Promise.resolve();
        const now = mode();
        if (now === 'fail') throw new Error(`${method} ${path}: connect ECONNREFUSED (test partition)`);
        if (now === 'hang') {
          if (!clock) throw new Error('FakeObjectStore: hang needs a clock');
          await clock.sleep(options.timeoutMs ?? 60_000, options.signal).catch(() => undefined);
          throw new Error(`${method} ${path}: no complete answer within ${options.timeoutMs ?? 60_000} ms`);
        }
        return this.#handle(method, path, options.body as StoredObject | undefined) as T;
      },
      watch: (path: string, _query: OrchQuery): Observable<RawWatchEvent> =>
        new Observable((subscriber) => subscriber.error(new Error(`not implemented yet: watch ${path} in FakeObjectStore`))),
    };
  }

  #handle(method: string, path: string, body: StoredObject | undefined): StoredObject {
    switch (method) {
      case 'GET': {
        const object = this.get(path);
        if (!object) throw new OrchApiError(404, 'NotFound', method, path, 'not found');
        return object;
      }
      case 'POST': {
        if (!body) throw new OrchApiError(400, 'BadRequest', method, path, 'no body');
        const objectPath = `${path}/${body.metadata.name}`;
        if (this.#objects.has(objectPath)) throw new OrchApiError(409, 'AlreadyExists', method, path, 'already exists');
        return this.#store(method, objectPath, body);
      }
      case 'PUT': {
        if (!body) throw new OrchApiError(400, 'BadRequest', method, path, 'no body');
        const current = this.#objects.get(path);
        if (!current) throw new OrchApiError(404, 'NotFound', method, path, 'not found');
        if (body.metadata.resourceVersion !== current.metadata.resourceVersion) {
          throw new OrchApiError(409, 'Conflict', method, path, 'the object has been modified');
        }
        return this.#store(method, path, body);
      }
      default:
        throw new Error(`not implemented yet: ${method} in FakeObjectStore`);
    }
  }

  #store(method: string, path: string, body: StoredObject): StoredObject {
    this.#version += 1;
    const object = structuredClone(body);
    object.metadata.resourceVersion = String(this.#version);
    this.#objects.set(path, object);
    this.writes.push(`${method} ${path}`);
    return structuredClone(object);
  }
}
