/**
 * Where the benchmark writes its config: files in a config dir (the server watches the dir), or objects
 * in a real API server (the server watches it, as in production). Both take a "file" of documents at a
 * time, renamed for the server under test (mesh.io for meshd, istio.io for istiod).
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { KINDS, type KindName } from '../../../crds/index.js';
import { OrchApiError, type OrchClient } from '../../../controllers/index.js';
import { toYaml, type Doc } from './config-gen.js';

/** A place the benchmark's config goes to. */
export interface ConfigSink {
  /** Writes (creates or replaces) the documents of one config file, `rel` relative to the config dir. */
  write(rel: string, docs: readonly Doc[]): Promise<void>;
}

/**
 * Writes a config file. `rename` replaces it atomically (write a dot-file, rename over); `inplace`
 * rewrites it. NOTE: Node 24's recursive fs.watch on Linux stops reporting a file once it has been
 * replaced by a rename (measured 2026-11-22), so with `rename` an edit may wait for the config source's
 * periodic rescan; `inplace` is the default so convergence measures the push path, not that gap.
 */
export function writeConfig(dir: string, rel: string, text: string, mode: 'rename' | 'inplace'): void {
  const path = join(dir, rel);
  mkdirSync(dirname(path), { recursive: true });
  if (mode === 'inplace') {
    writeFileSync(path, text);
    return;
  }
  // NOTE: dot-files are skipped by the config source, so the rename is the only event it sees.
  const tmp = join(dirname(path), `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`);
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** Files under `dir`, each document passed through `rename` first. */
export function fileConfigSink(dir: string, mode: 'rename' | 'inplace', rename: (d: Doc) => Doc = (d) => d): ConfigSink {
  return {
    write: (rel, docs) => {
      writeConfig(dir, rel, toYaml(docs.map(rename)), mode);
      return Promise.resolve();
    },
  };
}

const PLURALS: ReadonlyMap<string, string> = new Map(Object.keys(KINDS).map((k) => [k, KINDS[k as KindName].plural]));

/** The collection path of a namespaced custom object, e.g. `/apis/networking.istio.io/v1/namespaces/ns-0/virtualservices`. */
export function collectionPath(doc: Doc): string {
  const kind = String(doc.kind);
  const plural = PLURALS.get(kind);
  if (plural === undefined) throw new Error(`config sink: no plural known for kind "${kind}"`);
  const meta = doc.metadata as { namespace?: string } | undefined;
  if (!meta?.namespace) throw new Error(`config sink: ${kind} without metadata.namespace`);
  return `/apis/${String(doc.apiVersion)}/namespaces/${meta.namespace}/${plural}`;
}

/**
 * Objects in an API server: each document, renamed, is created or replaced; documents equal to what
 * this sink last wrote are skipped, so an edit writes only the objects it changes (as `kubectl apply`
 * of the file would).
 */
export class KubeConfigSink implements ConfigSink {
  readonly #client: OrchClient;
  readonly #rename: (d: Doc) => Doc;
  readonly #applied = new Map<string, { json: string; resourceVersion: string }>();

  constructor(client: OrchClient, rename: (d: Doc) => Doc = (d) => d) {
    this.#client = client;
    this.#rename = rename;
  }

  /** Objects written so far. */
  get objects(): number {
    return this.#applied.size;
  }

  async write(_rel: string, docs: readonly Doc[]): Promise<void> {
    await Promise.all(docs.map((d) => this.#apply(this.#rename(d))));
  }

  async #apply(doc: Doc): Promise<void> {
    const collection = collectionPath(doc);
    const name = String((doc.metadata as { name?: string }).name);
    const key = `${collection}/${name}`;
    const json = JSON.stringify(doc);
    const last = this.#applied.get(key);
    if (last?.json === json) return;
    const put = async (resourceVersion: string): Promise<{ metadata: { resourceVersion: string } }> =>
      this.#client.request('PUT', key, { body: { ...doc, metadata: { ...(doc.metadata as object), resourceVersion } } });
    let got: { metadata: { resourceVersion: string } };
    if (last) {
      got = await put(last.resourceVersion);
    } else {
      try {
        got = await this.#client.request('POST', collection, { body: doc });
      } catch (err) {
        if (!(err instanceof OrchApiError && err.status === 409)) throw err;
        const existing = await this.#client.request<{ metadata: { resourceVersion: string } }>('GET', key);
        got = await put(existing.metadata.resourceVersion);
      }
    }
    this.#applied.set(key, { json, resourceVersion: got.metadata.resourceVersion });
  }
}
