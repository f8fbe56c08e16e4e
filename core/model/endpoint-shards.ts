/**
 * Endpoints kept in shards per service host and shard key, as istiod's EndpointIndex / EndpointShards
 * keep them: a registry replaces the instances of one shard (one cluster of the orchestrator registry,
 * one declaring ServiceEntry) and only that shard is rebuilt; every other shard object stays the same.
 *
 * Writers use {@link EndpointShards} (mutable, versioned); readers take {@link EndpointShards.snapshot},
 * an {@link EndpointIndex} that never changes afterwards. Taking one is O(1): the index is a persistent
 * map of per-host entries, and a change copies only the trie nodes and the host entry it touches.
 * Change detection happens here, once: a shard whose new instances equal the old ones is no change.
 */
import { PersistentMap, type MapUpdate } from '../collections/persistent-map.js';
import type { ServiceInstance } from './service.js';

/** The instances of one service host from one source, at the version that last changed them. Immutable. */
export interface EndpointShard {
  /** The shard key, e.g. `Orchestrator/<cluster>` or `ServiceEntry/<namespace>/<name>`. */
  readonly key: string;
  /** The index version of the batch that last changed this shard. */
  readonly version: number;
  readonly instances: readonly ServiceInstance[];
}

/** Every shard of one service host. Immutable. */
export interface ServiceShards {
  readonly hostname: string;
  /** The index version of the batch that last changed any of its shards. */
  readonly version: number;
  /** Shards by key, in key order. */
  readonly shards: ReadonlyMap<string, EndpointShard>;
  /** The instances of every shard, in shard key order. */
  readonly instances: readonly ServiceInstance[];
}

/** One change: the new instances of a shard; undefined or empty removes the shard. */
export interface ShardUpdate {
  readonly hostname: string;
  readonly shard: string;
  readonly instances: readonly ServiceInstance[] | undefined;
}

const NO_INSTANCES: readonly ServiceInstance[] = Object.freeze([]);

/** An immutable view of every service's endpoints at one version. */
export class EndpointIndex {
  readonly #hosts: PersistentMap<ServiceShards>;

  /** @param version the writer's version this view was taken at */
  constructor(
    readonly version: number,
    hosts: PersistentMap<ServiceShards> = PersistentMap.empty(),
  ) {
    this.#hosts = hosts;
    Object.freeze(this);
  }

  /** Instances of a host across every shard, in a stable order (shard key, then as the shard holds them). */
  instances(hostname: string): readonly ServiceInstance[] {
    return this.#hosts.get(hostname)?.instances ?? NO_INSTANCES;
  }

  /** The shards of a host, if it has any. */
  shards(hostname: string): ServiceShards | undefined {
    return this.#hosts.get(hostname);
  }

  /** Host names that have at least one instance. */
  hostnames(): IterableIterator<string> {
    return this.#hosts.keys();
  }
}

/** Whether two instance lists hold the same instances in the same order. */
export function sameInstances(a: readonly ServiceInstance[], b: readonly ServiceInstance[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameInstance(a[i]!, b[i]!)) return false;
  return true;
}

function sameInstance(a: ServiceInstance, b: ServiceInstance): boolean {
  if (a === b) return true;
  return (
    a.hostname === b.hostname &&
    a.servicePort === b.servicePort &&
    a.servicePortName === b.servicePortName &&
    a.address === b.address &&
    a.port === b.port &&
    a.weight === b.weight &&
    a.serviceAccount === b.serviceAccount &&
    a.network === b.network &&
    a.health === b.health &&
    a.source === b.source &&
    a.locality.region === b.locality.region &&
    a.locality.zone === b.locality.zone &&
    a.locality.subZone === b.locality.subZone &&
    sameLabels(a.labels, b.labels)
  );
}

function sameLabels(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  if (a === b) return true;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (a[k] !== b[k]) return false;
  return true;
}

/** What one batch changed. */
export interface ShardChange {
  /** Hosts whose instances changed. */
  readonly hosts: ReadonlySet<string>;
  /** Shards rebuilt by the batch (`<hostname>|<shard>`), for tests and debugging. */
  readonly shards: ReadonlySet<string>;
}

/** The writer: see the file comment. */
export class EndpointShards {
  #version = 0;
  #hosts: PersistentMap<ServiceShards> = PersistentMap.empty();
  #snapshot = new EndpointIndex(0);

  /** The latest version (increases by one with every batch that changed something). */
  get version(): number {
    return this.#version;
  }

  /** The latest endpoints, as an immutable view. O(1). */
  get snapshot(): EndpointIndex {
    return this.#snapshot;
  }

  /**
   * Applies a batch (later updates of the same shard win). Shards whose instances did not change keep
   * their objects; hosts left with no shard are removed.
   */
  update(updates: Iterable<ShardUpdate>): ShardChange {
    const byHost = new Map<string, Map<string, readonly ServiceInstance[] | undefined>>();
    for (const u of updates) {
      let m = byHost.get(u.hostname);
      if (!m) byHost.set(u.hostname, (m = new Map()));
      m.set(u.shard, u.instances && u.instances.length > 0 ? u.instances : undefined);
    }
    const version = this.#version + 1;
    const hosts = new Set<string>();
    const shards = new Set<string>();
    const hostUpdates: MapUpdate<ServiceShards>[] = [];
    for (const [hostname, changes] of byHost) {
      const prev = this.#hosts.get(hostname);
      let next: Map<string, EndpointShard> | undefined;
      for (const [key, instances] of changes) {
        const old = prev?.shards.get(key);
        if (instances === undefined ? old === undefined : old !== undefined && sameInstances(old.instances, instances)) continue;
        next ??= new Map(prev?.shards);
        if (instances === undefined) next.delete(key);
        else next.set(key, Object.freeze({ key, version, instances: Object.freeze([...instances]) }));
        shards.add(`${hostname}|${key}`);
      }
      if (!next) continue;
      hosts.add(hostname);
      if (next.size === 0) {
        hostUpdates.push([hostname, undefined]);
        continue;
      }
      const ordered = new Map([...next].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      const instances = ordered.size === 1 ? [...ordered.values()][0]!.instances : Object.freeze([...ordered.values()].flatMap((s) => s.instances));
      hostUpdates.push([hostname, Object.freeze({ hostname, version, shards: ordered, instances })]);
    }
    if (hostUpdates.length > 0) {
      this.#version = version;
      this.#hosts = this.#hosts.withUpdates(hostUpdates);
      this.#snapshot = new EndpointIndex(version, this.#hosts);
    }
    return { hosts, shards };
  }
}
