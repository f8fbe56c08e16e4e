/**
 * What injection templates see (`.`) and the functions they may call, after Istio's injection data model:
 *
 * - `.TypeMeta` {`APIVersion`, `Kind`} and `.DeploymentMeta` {`Name`, `Namespace`}: the workload owning the pod.
 * - `.ObjectMeta` and `.Spec`: the pod's metadata and spec with Go field names (JSON names with the first
 *   letter upper-cased: `.Spec.Containers`, `$c.Ports`, `.Spec.ServiceAccountName`); `.ObjectMeta.Labels`
 *   and `.ObjectMeta.Annotations` are `map[string]string` (a missing key reads as "").
 * - `.ProxyConfig`: mesh config `defaultConfig` merged with the pod's `proxy.mesh.io/config`, Go field names,
 *   with `InterceptionMode` (`REDIRECT` unless set), `ProxyMetadata`, `HoldApplicationUntilProxyStarts`.
 * - `.MeshConfig` {`TrustDomain`, `EnablePrometheusMerge`}; `.Values`: the injector's values (Helm-style keys);
 *   `.Revision`; `.ProxyImage`; `.ProxyUID`/`.ProxyGID` (1337); `.NativeSidecars`.
 *
 * Functions: Sprig, plus Istio's `annotation`, `isset`, `valueOrDefault`, `excludeInboundPort`,
 * `includeInboundPorts`, `toJSON`, `fromJSON`, `structToJSON`, `protoToJSON`, `toYaml`, `directory`,
 * `toLower`, `env`, and mesh's `podPortsJSON`, `appContainers`.
 */
import { posix } from 'node:path';
import { GoFunction, GoInt, helmFunctions, newTemplateSet, sprint, typedMap, type GoMap, type GoValue, type TemplateSet } from '../templates/index.js';

/** Go field names that hold maps whose keys are data (kept as they are), not struct fields. */
const MAP_FIELDS = new Set(['labels', 'annotations', 'nodeSelector', 'requests', 'limits', 'matchLabels', 'proxyMetadata', 'data', 'capacity', 'selector']);
const STRING_MAP_FIELDS = new Set(['labels', 'annotations', 'nodeSelector', 'proxyMetadata']);

const upperFirst = (k: string): string => (k === 'apiVersion' ? 'APIVersion' : k.charAt(0).toUpperCase() + k.slice(1));
const lowerFirst = (k: string): string => (k === 'APIVersion' ? 'apiVersion' : k.charAt(0).toLowerCase() + k.slice(1));

/** A JSON value viewed as Go structs: keys with Go field names, integers as Go ints. */
export function goView(v: unknown, keepKeys = false, stringMap = false): GoValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isInteger(v) ? new GoInt(v, 'int32') : v;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map((x) => goView(x));
  const out: GoMap = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    out[keepKeys ? k : upperFirst(k)] = keepKeys && stringMap ? String(x) : goView(x, MAP_FIELDS.has(k), STRING_MAP_FIELDS.has(k));
  }
  return stringMap ? typedMap('string', out) : out;
}

/** The inverse of {@link goView}: JSON names back (for `structToJSON`). */
export function jsonView(v: GoValue, keepKeys = false): unknown {
  if (v === undefined) return null;
  if (v instanceof GoInt) return v.value;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => jsonView(x));
  if (!isPlain(v)) return null;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    const name = keepKeys ? k : lowerFirst(k);
    out[name] = jsonView((v as GoMap)[k], MAP_FIELDS.has(name));
  }
  return out;
}

function isPlain(v: object): boolean {
  const p = Object.getPrototypeOf(v) as unknown;
  return p === Object.prototype || p === null;
}

/** A string map of a view (`.ObjectMeta.Annotations`), never undefined. */
function stringMapOf(m: GoValue): Record<string, string> {
  if (m === null || m === undefined || typeof m !== 'object' || Array.isArray(m) || !isPlain(m)) return {};
  return Object.fromEntries(Object.entries(m as GoMap).map(([k, x]) => [k, typeof x === 'string' ? x : sprint([x])]));
}

function containersOf(v: GoValue): GoMap[] {
  return Array.isArray(v) ? (v.filter((c) => c !== null && typeof c === 'object' && !Array.isArray(c)) as GoMap[]) : [];
}

function excludeInboundPort(port: GoValue, excluded: GoValue): string {
  const portStr = sprint([port]).trim();
  const list = String(excluded ?? '');
  if (portStr === '' || portStr === '0') return list;
  const out: string[] = [];
  for (const p of list.split(',')) {
    if (p.trim() === portStr) return list;
    if (p.trim() !== '') out.push(p.trim());
  }
  out.push(portStr);
  return out.join(',');
}

/** Istio's injection functions (renamed), for a set that already has Sprig's. */
export function injectionFunctions(set: TemplateSet, env: (name: string) => string | undefined): Record<string, GoFunction> {
  const helm = helmFunctions(set);
  const toJson = (v: GoValue): string => JSON.stringify(jsonView(v, true)) ?? 'null';
  return {
    annotation: new GoFunction(['interface {}', 'string', 'interface {}'], (meta, name, def) => {
      const annos = stringMapOf(meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? (meta as GoMap)['Annotations'] : undefined);
      return Object.hasOwn(annos, name as string) ? annos[name as string]! : sprint([def]);
    }),
    isset: new GoFunction(['interface {}', 'string'], (m, key) => m !== null && typeof m === 'object' && !Array.isArray(m) && Object.hasOwn(m, key as string)),
    valueOrDefault: new GoFunction(['interface {}', 'interface {}'], (v, d) => (v === undefined || v === null || v === '' ? d : v)),
    excludeInboundPort: new GoFunction(['interface {}', 'interface {}'], excludeInboundPort),
    includeInboundPorts: new GoFunction(['interface {}'], (cs) => {
      const ports: string[] = [];
      for (const c of containersOf(cs)) for (const p of containersOf(c['Ports'])) ports.push(sprint([p['ContainerPort']]));
      return ports.join(',');
    }),
    toJSON: new GoFunction(['interface {}'], (v) => toJson(v)),
    fromJSON: new GoFunction(['string'], (s) => {
      try {
        return JSON.parse(s as string) as GoValue;
      } catch {
        return null;
      }
    }),
    structToJSON: new GoFunction(['interface {}'], (v) => JSON.stringify(jsonView(v)) ?? 'null'),
    protoToJSON: new GoFunction(['interface {}'], (v) => JSON.stringify(jsonView(v)) ?? 'null'),
    toYaml: helm['toYaml']!,
    fromYaml: helm['fromYaml']!,
    directory: new GoFunction(['string'], (p) => posix.dirname(p as string)),
    toLower: new GoFunction(['string'], (s) => (s as string).toLowerCase()),
    env: new GoFunction(['string', 'string'], (k, d) => env(k as string) ?? (d as string)),
    podPortsJSON: new GoFunction(['interface {}'], (cs) => {
      const ports = containersOf(cs).flatMap((c) => containersOf(c['Ports']).map((p) => JSON.stringify(jsonView(p))));
      return `[${ports.join(',')}]`;
    }),
    appContainers: new GoFunction(['interface {}'], (cs) => containersOf(cs).map((c) => String(c['Name'] ?? '')).filter((n) => n !== 'mesh-proxy').join(',')),
  };
}

/** A template set with Sprig and the injection functions. */
export function injectionTemplateSet(env: (name: string) => string | undefined): TemplateSet {
  const set = newTemplateSet({ sprig: true });
  set.addFuncs(injectionFunctions(set, env));
  return set;
}
