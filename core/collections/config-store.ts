/**
 * Every config object meshd knows, folded from ConfigEvents into immutable indexed snapshots.
 *
 * Indexes: `kind` (all objects of a kind), `kindNamespace` (`kind/namespace`), and `host`
 * (`kind/host` for the hosts a VirtualService, DestinationRule or ServiceEntry names, short names
 * resolved against the object's namespace).
 */
import type { Config, ConfigEvent } from '../model/config.js';
import { configKeyString } from '../model/config-key.js';
import { resolveShortName } from '../model/service.js';
import { IndexedCollection, type CollectionChange, type CollectionSnapshot } from './indexed-collection.js';

/** Kinds whose spec names hosts that the `host` index files them under. */
const HOST_FIELDS: Readonly<Record<string, (spec: Record<string, unknown>) => readonly string[]>> = {
  VirtualService: (s) => strings(s['hosts']),
  DestinationRule: (s) => strings([s['host']]),
  ServiceEntry: (s) => strings(s['hosts']),
};

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Options of a ConfigStore. */
export interface ConfigStoreOptions {
  /** DNS domain used to resolve short host names (`--domain`, default `cluster.local`). */
  readonly domain: string;
}

/** An immutable view of every config. */
export type ConfigSnapshot = CollectionSnapshot<Config>;

/** The config collection. */
export class ConfigStore {
  readonly #collection: IndexedCollection<Config>;

  constructor(opts: ConfigStoreOptions) {
    this.#collection = new IndexedCollection<Config>({
      kind: (c) => [c.kind],
      kindNamespace: (c) => [`${c.kind}/${c.metadata.namespace}`],
      host: (c) => {
        const fn = HOST_FIELDS[c.kind];
        if (!fn) return [];
        return fn(c.spec as Record<string, unknown>).map((h) => `${c.kind}/${resolveShortName(h, c.metadata.namespace, opts.domain)}`);
      },
    });
  }

  get snapshot(): ConfigSnapshot {
    return this.#collection.snapshot;
  }

  /** Folds a batch of events. Deleted keys are removed whatever object the event carries. */
  apply(events: Iterable<ConfigEvent>): CollectionChange<Config> {
    const updates = [];
    for (const e of events) {
      const key = configKeyString(e.key);
      updates.push(e.type === 'deleted' ? { key } : { key, value: e.object });
    }
    return this.#collection.apply(updates);
  }
}

/** Configs of one kind in a snapshot, in key order. */
export function configsOfKind(s: ConfigSnapshot, kind: string): readonly Config[] {
  return s.byIndex('kind', kind);
}
