/**
 * The agent's ProxyConfig (Istio's `meshconfig.ProxyConfig`, the fields pilot-agent acts on) and how
 * it is assembled, in Istio's order: the mesh config file's `defaultConfig` (built-in defaults when the
 * file is missing), then `PROXY_CONFIG`, then the pod's `proxy.mesh.io/config` annotation. Each layer is
 * YAML (or JSON); a bad field is an error naming the layer it came from and the field.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { DurationError, parseDuration } from '../core/index.js';

/** Tracing of the bootstrap (ProxyConfig.tracing; only Zipkin is rendered). */
export interface TracingConfig {
  readonly zipkin?: { readonly address: string };
  readonly sampling?: number;
}

/** The ProxyConfig fields the agent acts on, with Istio's defaults (renamed). Durations are in ms. */
export interface ProxyConfig {
  readonly configPath: string;
  readonly binaryPath: string;
  readonly serviceCluster: string;
  readonly drainDurationMs: number;
  readonly terminationDrainDurationMs: number;
  readonly discoveryAddress: string;
  readonly proxyAdminPort: number;
  readonly statusPort: number;
  readonly concurrency: number;
  readonly controlPlaneAuthPolicy: 'NONE' | 'MUTUAL_TLS';
  readonly proxyBootstrapTemplatePath: string;
  readonly proxyMetadata: Readonly<Record<string, string>>;
  readonly extraStatTags: readonly string[];
  readonly holdApplicationUntilProxyStarts: boolean;
  readonly tracing?: TracingConfig;
}

/** Istio's DefaultProxyConfig with `istio` -> `mesh` and Envoy -> `dataplane`. */
export function defaultProxyConfig(): ProxyConfig {
  return {
    configPath: './etc/mesh/proxy',
    binaryPath: '/usr/local/bin/dataplane',
    serviceCluster: 'mesh-proxy',
    drainDurationMs: 45_000,
    terminationDrainDurationMs: 5_000,
    discoveryAddress: 'meshd.mesh-system.svc:15012',
    proxyAdminPort: 15000,
    statusPort: 15020,
    concurrency: 2,
    controlPlaneAuthPolicy: 'MUTUAL_TLS',
    proxyBootstrapTemplatePath: '',
    proxyMetadata: {},
    extraStatTags: [],
    holdApplicationUntilProxyStarts: false,
  };
}

/** A ProxyConfig or mesh config layer that cannot be used: names the layer (`PROXY_CONFIG`, a file) and the field. */
export class ProxyConfigError extends Error {
  override readonly name = 'ProxyConfigError';
}

/** ProxyConfig fields Istio defines that the agent accepts but does not act on. */
const ACCEPTED_ONLY = new Set([
  'parentShutdownDuration', 'discoveryRefreshDelay', 'zipkinAddress', 'statsdUdpAddress', 'envoyMetricsServiceAddress', 'availabilityZone',
  'customConfigFile', 'statNameLength', 'interceptionMode', 'sds', 'envoyAccessLogService', 'envoyMetricsService', 'runtimeValues',
  'gatewayTopology', 'meshId', 'readinessProbe', 'proxyStatsMatcher', 'caCertificatesPem', 'image', 'privateKeyProvider', 'proxyHeaders',
  'fileFlushInterval', 'fileFlushMinSizeKb', 'outlierLogPath',
]);

type Layer = Record<string, unknown>;

function durationField(v: unknown, where: string, field: string): number {
  try {
    if (typeof v !== 'string') throw new DurationError(`not a string`);
    return parseDuration(v);
  } catch {
    throw new ProxyConfigError(`${where}: ${field}: ${JSON.stringify(v)} is not a duration (use a number with a unit, like 5s or 1m0s)`);
  }
}

function intField(v: unknown, where: string, field: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new ProxyConfigError(`${where}: ${field}: ${JSON.stringify(v)} is not a whole number from ${min} to ${max}`);
  }
  return v;
}

function stringField(v: unknown, where: string, field: string): string {
  if (typeof v !== 'string') throw new ProxyConfigError(`${where}: ${field}: ${JSON.stringify(v)} is not a string`);
  return v;
}

/** Applies one layer over `base`; `where` names the layer in errors. Exported for tests. */
export function applyProxyConfigLayer(base: ProxyConfig, layer: Layer, where: string): ProxyConfig {
  const out: { -readonly [K in keyof ProxyConfig]: ProxyConfig[K] } = { ...base };
  for (const [field, v] of Object.entries(layer)) {
    if (v === null || v === undefined) continue;
    switch (field) {
      case 'configPath':
      case 'binaryPath':
      case 'serviceCluster':
      case 'discoveryAddress':
      case 'proxyBootstrapTemplatePath':
        out[field] = stringField(v, where, field);
        break;
      case 'drainDuration':
        out.drainDurationMs = durationField(v, where, field);
        break;
      case 'terminationDrainDuration':
        out.terminationDrainDurationMs = durationField(v, where, field);
        break;
      case 'proxyAdminPort':
      case 'statusPort':
        out[field] = intField(v, where, field, 1, 65535);
        break;
      case 'concurrency':
        out.concurrency = intField(typeof v === 'object' && v !== null && 'value' in v ? (v as { value: unknown }).value : v, where, field, 0, 1024);
        break;
      case 'controlPlaneAuthPolicy':
        if (v !== 'NONE' && v !== 'MUTUAL_TLS') throw new ProxyConfigError(`${where}: ${field}: ${JSON.stringify(v)} is not NONE or MUTUAL_TLS`);
        out.controlPlaneAuthPolicy = v;
        break;
      case 'holdApplicationUntilProxyStarts':
        if (typeof v !== 'boolean') throw new ProxyConfigError(`${where}: ${field}: ${JSON.stringify(v)} is not true or false`);
        out.holdApplicationUntilProxyStarts = v;
        break;
      case 'proxyMetadata':
        if (typeof v !== 'object' || Array.isArray(v) || Object.values(v).some((x) => typeof x !== 'string')) {
          throw new ProxyConfigError(`${where}: ${field}: must map names to strings`);
        }
        out.proxyMetadata = { ...base.proxyMetadata, ...(v as Record<string, string>) };
        break;
      case 'extraStatTags':
        if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new ProxyConfigError(`${where}: ${field}: must be a list of strings`);
        out.extraStatTags = v as string[];
        break;
      case 'tracing':
        out.tracing = tracingField(v, where);
        break;
      default:
        if (!ACCEPTED_ONLY.has(field)) throw new ProxyConfigError(`${where}: unknown ProxyConfig field "${field}"`);
    }
  }
  return out;
}

function tracingField(v: unknown, where: string): TracingConfig {
  if (typeof v !== 'object' || v === null) throw new ProxyConfigError(`${where}: tracing: must be an object`);
  const t = v as Record<string, unknown>;
  const zipkin = t['zipkin'] as Record<string, unknown> | undefined;
  const sampling = t['sampling'];
  if (sampling !== undefined && (typeof sampling !== 'number' || sampling < 0 || sampling > 100)) {
    throw new ProxyConfigError(`${where}: tracing.sampling: ${JSON.stringify(sampling)} is not a percentage from 0 to 100`);
  }
  return {
    ...(zipkin ? { zipkin: { address: stringField(zipkin['address'], where, 'tracing.zipkin.address') } } : {}),
    ...(typeof sampling === 'number' ? { sampling } : {}),
  };
}

function parseLayer(text: string, where: string): Layer {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new ProxyConfigError(`${where}: not YAML or JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ProxyConfigError(`${where}: must be a mapping of ProxyConfig fields`);
  return doc as Layer;
}

/** Where the layers come from (read once at start by cli/). */
export interface ProxyConfigSources {
  /** `--meshConfig`; a missing file means the defaults. */
  readonly meshConfigPath: string;
  /** `PROXY_CONFIG`, when set. */
  readonly proxyConfigEnv?: string;
  /** The pod's annotations file (downward API, `key="value"` lines); missing means none. */
  readonly annotationsPath?: string;
}

/** The resolved ProxyConfig and the mesh-wide values the agent needs next to it. */
export interface ResolvedMeshConfig {
  readonly proxy: ProxyConfig;
  readonly trustDomain: string;
}

/** Parses Kubernetes downward-API annotation files: `key="go-quoted value"` per line. */
export function parsePodAnnotations(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const raw = line.slice(eq + 1).trim();
    let value = raw;
    if (raw.startsWith('"')) {
      try {
        value = JSON.parse(raw) as string;
      } catch {
        value = raw.slice(1, -1);
      }
    }
    out[line.slice(0, eq).trim()] = value;
  }
  return out;
}

/** The annotation carrying a per-pod ProxyConfig. */
export const PROXY_CONFIG_ANNOTATION = 'proxy.mesh.io/config';

/** Reads the layers in Istio's order and resolves the ProxyConfig; throws `ProxyConfigError` naming the layer. */
export function resolveProxyConfig(sources: ProxyConfigSources): ResolvedMeshConfig {
  let proxy = defaultProxyConfig();
  let trustDomain = 'cluster.local';
  if (existsSync(sources.meshConfigPath)) {
    const where = `mesh config ${sources.meshConfigPath}`;
    const mesh = parseLayer(readFileSync(sources.meshConfigPath, 'utf8'), where);
    if (mesh['trustDomain'] !== undefined) trustDomain = stringField(mesh['trustDomain'], where, 'trustDomain');
    const dc = mesh['defaultConfig'];
    if (dc !== undefined && dc !== null) {
      if (typeof dc !== 'object' || Array.isArray(dc)) throw new ProxyConfigError(`${where}: defaultConfig: must be a mapping of ProxyConfig fields`);
      proxy = applyProxyConfigLayer(proxy, dc as Layer, `${where}: defaultConfig`);
    }
  }
  if (sources.proxyConfigEnv !== undefined && sources.proxyConfigEnv.trim() !== '') {
    proxy = applyProxyConfigLayer(proxy, parseLayer(sources.proxyConfigEnv, 'PROXY_CONFIG'), 'PROXY_CONFIG');
  }
  if (sources.annotationsPath && existsSync(sources.annotationsPath)) {
    const annotation = parsePodAnnotations(readFileSync(sources.annotationsPath, 'utf8'))[PROXY_CONFIG_ANNOTATION];
    if (annotation !== undefined) {
      const where = `annotation ${PROXY_CONFIG_ANNOTATION} (${sources.annotationsPath})`;
      proxy = applyProxyConfigLayer(proxy, parseLayer(annotation, where), where);
    }
  }
  return { proxy, trustDomain };
}
