/**
 * An Envoy admin `/config_dump` (JSON, as Envoy and `meshctl x translate` write it: snake_case fields,
 * `configs` holding one `*ConfigDump` per `@type`), read into the parts proxy-config shows.
 */
import { ReachError } from '../reach/index.js';

/** A JSON object of the dump. */
export type Json = Record<string, unknown>;

const ADMIN = 'type.googleapis.com/envoy.admin.v3.';

function arr(v: unknown): Json[] {
  return Array.isArray(v) ? (v as Json[]) : [];
}

function obj(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

/** The parts of a config dump, each undefined-safe (a missing section gives an empty list). */
export class ConfigDump {
  readonly #sections = new Map<string, Json>();

  /** @param raw the parsed dump; @param source names it in errors (a file path or `pod x.ns`) */
  constructor(
    readonly raw: Json,
    readonly source: string,
  ) {
    const configs = raw['configs'];
    if (!Array.isArray(configs)) throw new ReachError(`${source}: not an Envoy config dump (no "configs" list)`);
    for (const [i, c] of configs.entries()) {
      const type = obj(c)?.['@type'];
      if (typeof type !== 'string') throw new ReachError(`${source}: configs[${i}] has no "@type"`);
      this.#sections.set(type.startsWith(ADMIN) ? type.slice(ADMIN.length) : type, c as Json);
    }
  }

  /** The section of a dump type (`BootstrapConfigDump`, ...), if present. */
  section(name: string): Json | undefined {
    return this.#sections.get(name);
  }

  /** The bootstrap, if the dump has one. */
  bootstrap(): Json | undefined {
    return obj(this.section('BootstrapConfigDump')?.['bootstrap']);
  }

  /** Static and active dynamic clusters. */
  clusters(): Json[] {
    const s = this.section('ClustersConfigDump');
    return [...arr(s?.['static_clusters']), ...arr(s?.['dynamic_active_clusters'])].flatMap((c) => (obj(c['cluster']) ? [c['cluster'] as Json] : []));
  }

  /** Static listeners and the active state of dynamic ones. */
  listeners(): Json[] {
    const s = this.section('ListenersConfigDump');
    const statics = arr(s?.['static_listeners']).flatMap((l) => (obj(l['listener']) ? [l['listener'] as Json] : []));
    const dynamics = arr(s?.['dynamic_listeners']).flatMap((l) => {
      const active = obj(obj(l['active_state'])?.['listener']);
      return active ? [active] : [];
    });
    return [...statics, ...dynamics];
  }

  /** Static and dynamic route configurations. */
  routeConfigs(): Json[] {
    const s = this.section('RoutesConfigDump');
    return [...arr(s?.['static_route_configs']), ...arr(s?.['dynamic_route_configs'])].flatMap((r) => (obj(r['route_config']) ? [r['route_config'] as Json] : []));
  }

  /** Static and dynamic load assignments. */
  loadAssignments(): Json[] {
    const s = this.section('EndpointsConfigDump');
    return [...arr(s?.['static_endpoint_configs']), ...arr(s?.['dynamic_endpoint_configs'])].flatMap((e) => (obj(e['endpoint_config']) ? [e['endpoint_config'] as Json] : []));
  }

  /** Static and active dynamic secrets, with their names. */
  secrets(): Json[] {
    const s = this.section('SecretsConfigDump');
    return [...arr(s?.['static_secrets']), ...arr(s?.['dynamic_active_secrets']), ...arr(s?.['dynamic_warming_secrets'])];
  }

  /** The typed extension configs (ECDS). */
  extensionConfigs(): Json[] {
    const s = this.section('EcdsConfigDump');
    return arr(s?.['ecds_filters']);
  }
}

/**
 * Parses a config dump from text.
 * @throws ReachError naming `source` when the text is not JSON or not a config dump
 */
export function parseConfigDump(text: string, source: string): ConfigDump {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ReachError(`${source}: not JSON: ${(e as Error).message}`);
  }
  const o = obj(raw);
  if (!o) throw new ReachError(`${source}: not an Envoy config dump (not a JSON object)`);
  return new ConfigDump(o, source);
}

/** A field path into nested JSON objects, undefined where any step is missing. */
export function pick(v: unknown, ...path: string[]): unknown {
  let cur = v;
  for (const p of path) cur = obj(cur)?.[p];
  return cur;
}

/**
 * `name.namespace` of the object a resource's metadata names first, else '': meshd's `mesh.sources[0]`
 * (`Kind/namespace/name@generation`), or the `config` path istiod writes (`/apis/<group>/<version>/namespaces/<ns>/<kind>/<name>`).
 */
export function configRef(meta: unknown): string {
  const fm = obj(pick(meta, 'filter_metadata'));
  const first = pick(fm?.['mesh'], 'sources');
  if (Array.isArray(first) && typeof first[0] === 'string') {
    const m = /^[^/]+\/([^/]+)\/([^/@]+)@/.exec(first[0]);
    if (m) return `${m[2]}.${m[1]}`;
  }
  for (const key of ['mesh', 'istio']) {
    const path = pick(fm?.[key], 'config');
    if (typeof path === 'string') {
      const m = /\/namespaces\/([^/]+)\/[^/]+\/([^/]+)$/.exec(path);
      if (m) return `${m[2]}.${m[1]}`;
    }
  }
  return '';
}
