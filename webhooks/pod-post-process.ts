/**
 * What the injector does to a pod after the templates are merged, as Istio's `postProcessPod` (renamed):
 * container order, app probes rewritten to the agent's status port, Prometheus annotations merged into the
 * agent's, the proxy overrides a pod declares in its own `mesh-proxy` container, and the status annotation.
 */
import { isObject, overlay, type JsonObject } from './pod-overlay.js';

/** The injected proxy and init container names. */
export const PROXY_CONTAINER = 'mesh-proxy';
export const INIT_CONTAINER = 'mesh-init';
/** Annotation turning the probe rewrite on or off for a pod. */
export const REWRITE_PROBERS = 'sidecar.mesh.io/rewriteAppHTTPProbers';
/** Env var of the proxy carrying the original app probes (JSON). */
export const APP_PROBERS_ENV = 'MESH_KUBE_APP_PROBERS';
/** Env var of the proxy carrying the app's own Prometheus annotations (JSON). */
export const PROMETHEUS_ANNOTATIONS_ENV = 'MESH_PROMETHEUS_ANNOTATIONS';

/** JSON with object keys sorted at every level (Go's encoding of maps). */
export function stableJson(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObject(v)) return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
}

function names(list: unknown): string[] {
  return Array.isArray(list) ? list.filter(isObject).map((c) => String(c['name'])) : [];
}

function objects(list: unknown): JsonObject[] {
  return Array.isArray(list) ? list.filter(isObject) : [];
}

/** Puts mesh-init first among init containers and mesh-proxy last (or first when the app waits for it). */
export function reorderContainers(spec: JsonObject, proxyFirst: boolean): void {
  const inits = objects(spec['initContainers']);
  if (inits.length > 0) {
    const rank = (c: JsonObject): number => (c['name'] === INIT_CONTAINER ? 0 : c['name'] === PROXY_CONTAINER ? 1 : 2);
    spec['initContainers'] = inits.map((c, i) => ({ c, i })).sort((a, b) => rank(a.c) - rank(b.c) || a.i - b.i).map((x) => x.c);
  }
  const cs = objects(spec['containers']);
  const proxy = cs.find((c) => c['name'] === PROXY_CONTAINER);
  if (proxy && cs.length > 1) {
    const rest = cs.filter((c) => c !== proxy);
    spec['containers'] = proxyFirst ? [proxy, ...rest] : [...rest, proxy];
  }
}

/** The proxy container (in containers, or in initContainers for native sidecars). */
export function proxyContainer(spec: JsonObject): JsonObject | undefined {
  return [...objects(spec['containers']), ...objects(spec['initContainers'])].find((c) => c['name'] === PROXY_CONTAINER);
}

function setEnv(container: JsonObject, name: string, value: string): void {
  const env = objects(container['env']).filter((e) => e['name'] !== name);
  env.push({ name, value });
  container['env'] = env;
}

const PROBES = [
  ['readinessProbe', 'readyz'],
  ['livenessProbe', 'livez'],
  ['startupProbe', 'startupz'],
] as const;

function resolvePort(port: unknown, container: JsonObject): unknown {
  if (typeof port !== 'string' || /^\d+$/.test(port)) return typeof port === 'string' ? Number(port) : port;
  const named = objects(container['ports']).find((p) => p['name'] === port);
  return named ? named['containerPort'] : port;
}

/**
 * Rewrites HTTP, TCP and gRPC probes of the app containers to `/app-health/<container>/<kind>` on the
 * agent's status port, and hands the originals to the proxy in MESH_KUBE_APP_PROBERS.
 */
export function rewriteAppProbes(spec: JsonObject, statusPort: number): void {
  const proxy = proxyContainer(spec);
  if (!proxy || statusPort === 0) return;
  const probers: Record<string, unknown> = {};
  for (const c of objects(spec['containers'])) {
    if (c['name'] === PROXY_CONTAINER) continue;
    for (const [field, kind] of PROBES) {
      const probe = c[field];
      if (!isObject(probe)) continue;
      const path = `/app-health/${String(c['name'])}/${kind}`;
      const timeout = probe['timeoutSeconds'];
      let original: JsonObject | undefined;
      if (isObject(probe['httpGet'])) {
        const h = probe['httpGet'];
        if (h['port'] === statusPort) continue;
        original = { httpGet: { ...h, port: resolvePort(h['port'], c) } };
        delete probe['httpGet'];
      } else if (isObject(probe['tcpSocket'])) {
        original = { tcpSocket: { ...probe['tcpSocket'], port: resolvePort(probe['tcpSocket']['port'], c) } };
        delete probe['tcpSocket'];
      } else if (isObject(probe['grpc'])) {
        original = { grpc: probe['grpc'] };
        delete probe['grpc'];
      }
      if (!original) continue;
      if (timeout !== undefined) original['timeoutSeconds'] = timeout;
      probers[path] = original;
      probe['httpGet'] = { path, port: statusPort, scheme: 'HTTP' };
    }
  }
  if (Object.keys(probers).length > 0) setEnv(proxy, APP_PROBERS_ENV, stableJson(probers));
}

/**
 * Points `prometheus.io/*` at the agent's merged metrics (`:<statusPort>/stats/prometheus`), keeping the
 * app's own scrape target in MESH_PROMETHEUS_ANNOTATIONS. Skipped when the pod sets `prometheus.io/scrape: "false"`.
 */
export function mergePrometheus(meta: JsonObject, spec: JsonObject, statusPort: number): void {
  const proxy = proxyContainer(spec);
  const annos = (isObject(meta['annotations']) ? meta['annotations'] : {}) as Record<string, string>;
  if (!proxy || statusPort === 0 || annos['prometheus.io/scrape'] === 'false' || annos['prometheus.mesh.io/merge-metrics'] === 'false') return;
  const app: Record<string, string> = {};
  for (const k of ['scrape', 'path', 'port']) if (annos[`prometheus.io/${k}`] !== undefined) app[k] = annos[`prometheus.io/${k}`]!;
  if (Object.keys(app).length > 0) setEnv(proxy, PROMETHEUS_ANNOTATIONS_ENV, stableJson(app));
  meta['annotations'] = { ...annos, 'prometheus.io/path': '/stats/prometheus', 'prometheus.io/port': String(statusPort), 'prometheus.io/scrape': 'true' };
}

/** A pod's own `mesh-proxy` container (fields it sets itself, but not `image: auto`) wins over the template's. */
export function applyProxyOverrides(spec: JsonObject, own: JsonObject | undefined): void {
  if (!own) return;
  const original = { ...own };
  if (original['image'] === 'auto') delete original['image'];
  for (const list of ['containers', 'initContainers']) {
    const cs = objects(spec[list]);
    const at = cs.findIndex((c) => c['name'] === PROXY_CONTAINER);
    if (at >= 0) {
      cs[at] = overlay(cs[at], original) as JsonObject;
      spec[list] = cs;
    }
  }
}

/**
 * The `sidecar.mesh.io/status` annotation: what injection added (names the templates rendered that the pod
 * did not have, and the proxy and init containers always), and by which revision.
 */
export function statusAnnotation(before: JsonObject, rendered: readonly JsonObject[], revision: string): string {
  const added = (field: string): string[] | null => {
    const was = new Set(names(before[field]));
    const now = [...new Set(rendered.flatMap((r) => names(r[field])))].filter((n) => !was.has(n) || n === PROXY_CONTAINER || n === INIT_CONTAINER);
    return now.length > 0 ? now : null;
  };
  return JSON.stringify({
    initContainers: added('initContainers'),
    containers: added('containers'),
    volumes: added('volumes'),
    imagePullSecrets: added('imagePullSecrets'),
    revision,
  });
}
