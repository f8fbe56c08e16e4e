/**
 * Config objects and the events that carry them. Every mesh.io object meshd reads (VirtualService,
 * DestinationRule, ServiceEntry, ...) is held as a `Config`: its identity, metadata and its spec as
 * validated by crds/. Sources emit `ConfigEvent`s; collections fold them into immutable views.
 */
import { configKeyString, type ConfigKey } from './config-key.js';

/** The event types every source emits. */
export const EVENT_TYPES = ['added', 'updated', 'deleted'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Object metadata, the subset of Kubernetes ObjectMeta meshd uses. */
export interface ConfigMeta {
  readonly name: string;
  readonly namespace: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly resourceVersion?: string;
  /** RFC 3339 text; used as a tie-break (oldest wins) where Istio uses one. */
  readonly creationTimestamp?: string;
  readonly generation?: number;
}

/** One config object. `kind` is the bare kind (`VirtualService`), `apiVersion` the group/version. */
export interface Config<S = Readonly<Record<string, unknown>>> {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ConfigMeta;
  readonly spec: S;
  /** Status as the source gave it (WorkloadEntry health conditions live here). */
  readonly status?: Readonly<Record<string, unknown>>;
}

/** A change to one config object. `object` is absent only for `deleted` when the source lost it. */
export interface ConfigEvent {
  readonly type: EventType;
  readonly key: ConfigKey;
  readonly object?: Config;
  readonly resourceVersion: string;
}

/** The key of a config object. */
export function keyOf(c: Config): ConfigKey {
  return { kind: c.kind, namespace: c.metadata.namespace, name: c.metadata.name };
}

/** The string key (`kind/namespace/name`) of a config object. */
export function keyStringOf(c: Config): string {
  return configKeyString(keyOf(c));
}

/** Parses `kind/namespace/name` back into a ConfigKey (names and kinds never contain `/`). */
export function parseConfigKey(text: string): ConfigKey {
  const [kind, namespace, name] = text.split('/');
  if (kind === undefined || namespace === undefined || name === undefined) {
    throw new Error(`config key "${text}": want kind/namespace/name`);
  }
  return { kind, namespace, name };
}

/** Deep-freezes a plain value (objects, arrays, maps are left alone). Returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}
