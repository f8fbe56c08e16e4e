/**
 * The mesh config (`--meshConfig`) and mesh networks (`--networksConfig`) files: read at start (a
 * missing file means the defaults), then watched; a changed file emits a new value. A file that
 * cannot be parsed is an error at start and is ignored (the last good value stays) afterwards.
 */
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { Observable } from 'rxjs';
import { parse } from 'yaml';
import { defaultMeshConfig, defaultMeshNetworks, type MeshConfig, type MeshNetworks, type MeshMtlsConfig, type ModelInput, type TlsDefaults } from '../core/index.js';

/** A mesh config or networks file that cannot be used; the message names the file and field. */
export class MeshConfigError extends Error {
  override readonly name = 'MeshConfigError';
}

const BOOL_FIELDS = ['enableAutoMtls', 'enableTracing'] as const;
const STRING_FIELDS = [
  'rootNamespace',
  'trustDomain',
  'ingressClass',
  'ingressService',
  'ingressControllerMode',
  'accessLogFile',
  'connectTimeout',
  'protocolDetectionTimeout',
  'dnsRefreshRate',
] as const;
const STRING_LIST_FIELDS = ['trustDomainAliases', 'defaultServiceExportTo', 'defaultVirtualServiceExportTo', 'defaultDestinationRuleExportTo'] as const;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new MeshConfigError(`${path}: cannot read: ${(e as Error).message}`);
  }
}

function parseYamlObject(path: string, text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = parse(text);
  } catch (e) {
    throw new MeshConfigError(`${path}: not YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (v === null || v === undefined) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new MeshConfigError(`${path}: want a mapping of mesh config fields`);
  return v as Record<string, unknown>;
}

/** meshConfig.tlsDefaults: `{ecdhCurves, cipherSuites}`, lists of strings (other fields of Istio's TLSConfig are not read there). */
function parseTlsDefaults(v: unknown, bad: (field: string, want: string) => never): TlsDefaults | undefined {
  if (v === null || v === undefined) return undefined;
  const want = '{ecdhCurves: [strings], cipherSuites: [strings]}';
  if (typeof v !== 'object' || Array.isArray(v)) bad('tlsDefaults', want);
  const o = v as Record<string, unknown>;
  const list = (k: string): readonly string[] | undefined => {
    const x = o[k];
    if (x === undefined || x === null) return undefined;
    if (!Array.isArray(x) || x.some((e) => typeof e !== 'string')) bad('tlsDefaults', want);
    return x as string[];
  };
  const ecdhCurves = list('ecdhCurves');
  const cipherSuites = list('cipherSuites');
  return { ...(ecdhCurves ? { ecdhCurves } : {}), ...(cipherSuites ? { cipherSuites } : {}) };
}

const MESH_TLS_VERSIONS = ['TLS_AUTO', 'TLSV1_2', 'TLSV1_3'] as const;

/** meshConfig.meshMTLS: `{minProtocolVersion, cipherSuites}`; `ecdhCurves` is refused as Istio's validation does. */
function parseMeshMtls(path: string, v: unknown, bad: (field: string, want: string) => never): MeshMtlsConfig | undefined {
  if (v === null || v === undefined) return undefined;
  const want = `{minProtocolVersion: ${MESH_TLS_VERSIONS.join(' | ')}, cipherSuites: [strings]}`;
  if (typeof v !== 'object' || Array.isArray(v)) bad('meshMTLS', want);
  const o = v as Record<string, unknown>;
  if (o['ecdhCurves'] !== undefined && o['ecdhCurves'] !== null) throw new MeshConfigError(`${path}: meshMTLS.ecdhCurves: mesh TLS does not support ECDH curves configuration`);
  const min = o['minProtocolVersion'];
  if (min !== undefined && min !== null && !(MESH_TLS_VERSIONS as readonly unknown[]).includes(min)) bad('meshMTLS', want);
  const ciphers = o['cipherSuites'];
  if (ciphers !== undefined && ciphers !== null && (!Array.isArray(ciphers) || ciphers.some((e) => typeof e !== 'string'))) bad('meshMTLS', want);
  return {
    ...(typeof min === 'string' ? { minProtocolVersion: min as MeshMtlsConfig['minProtocolVersion'] } : {}),
    ...(Array.isArray(ciphers) ? { cipherSuites: ciphers as string[] } : {}),
  };
}

/** Parses mesh config YAML (Istio's MeshConfig fields) over the defaults. */
export function parseMeshConfig(path: string, text: string): MeshConfig {
  const raw = parseYamlObject(path, text);
  const out: Record<string, unknown> = { ...defaultMeshConfig() };
  const extra: Record<string, unknown> = {};
  const bad = (field: string, want: string): never => {
    throw new MeshConfigError(`${path}: ${field}: want ${want}, got ${JSON.stringify(raw[field])}`);
  };
  for (const [k, v] of Object.entries(raw)) {
    if ((BOOL_FIELDS as readonly string[]).includes(k)) {
      if (typeof v !== 'boolean') bad(k, 'true or false');
      out[k] = v;
    } else if ((STRING_FIELDS as readonly string[]).includes(k)) {
      if (typeof v !== 'string') bad(k, 'a string');
      out[k] = v;
    } else if ((STRING_LIST_FIELDS as readonly string[]).includes(k)) {
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) bad(k, 'a list of strings');
      out[k] = v;
    } else if (k === 'outboundTrafficPolicy') {
      const mode = (v as { mode?: unknown } | null)?.mode ?? 'ALLOW_ANY';
      if (mode !== 'ALLOW_ANY' && mode !== 'REGISTRY_ONLY') bad(k, '{mode: ALLOW_ANY | REGISTRY_ONLY}');
      out[k] = { mode };
    } else if (k === 'defaultConfig') {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) bad(k, 'a mapping (ProxyConfig)');
      out[k] = { ...defaultMeshConfig().defaultConfig, ...(v as object) };
    } else if (k === 'localityLbSetting') {
      out[k] = v;
    } else if (k === 'tlsDefaults') {
      out[k] = parseTlsDefaults(v, bad);
    } else if (k === 'meshMTLS') {
      out[k] = parseMeshMtls(path, v, bad);
    } else {
      extra[k] = v;
    }
  }
  out['extra'] = extra;
  return out as unknown as MeshConfig;
}

/** Parses mesh networks YAML (`networks: {name: {endpoints, gateways}}`). */
export function parseMeshNetworks(path: string, text: string): MeshNetworks {
  const raw = parseYamlObject(path, text);
  const networks = raw['networks'] ?? {};
  if (typeof networks !== 'object' || networks === null || Array.isArray(networks)) {
    throw new MeshConfigError(`${path}: networks: want a mapping of network name to {endpoints, gateways}`);
  }
  for (const [name, n] of Object.entries(networks)) {
    const net = n as { endpoints?: unknown; gateways?: unknown } | null;
    if (net?.endpoints !== undefined && !Array.isArray(net.endpoints)) throw new MeshConfigError(`${path}: networks.${name}.endpoints: want a list`);
    if (net?.gateways !== undefined && !Array.isArray(net.gateways)) throw new MeshConfigError(`${path}: networks.${name}.gateways: want a list`);
  }
  const normal: Record<string, unknown> = {};
  for (const [name, n] of Object.entries(networks as Record<string, { endpoints?: unknown[]; gateways?: unknown[] } | null>)) {
    normal[name] = { endpoints: n?.endpoints ?? [], gateways: n?.gateways ?? [] };
  }
  return { networks: normal } as MeshNetworks;
}

/** Reads the mesh config file; the defaults when it does not exist. */
export function readMeshConfig(path: string): MeshConfig {
  const text = readText(path);
  return text === undefined ? defaultMeshConfig() : parseMeshConfig(path, text);
}

/** Reads the networks file; no networks when it does not exist. */
export function readMeshNetworks(path: string): MeshNetworks {
  const text = readText(path);
  return text === undefined ? defaultMeshNetworks() : parseMeshNetworks(path, text);
}

/** Options of the watchers. */
export interface WatchedFileOptions {
  /** Quiet period after a file event; default 100 ms. */
  readonly debounceMs?: number;
  /** Called when a changed file cannot be used (the last good value stays). */
  readonly onError?: (err: Error) => void;
}

/**
 * Watches one file (through its directory, so replacing the file and ConfigMap symlink swaps are
 * seen). Emits the parsed value at start, then whenever the file's text changes.
 */
function watchedFile<T>(path: string, read: (path: string) => T, opts: WatchedFileOptions): Observable<T> {
  return new Observable<T>((subscriber) => {
    let lastText = readText(path);
    subscriber.next(read(path)); // NOTE: throws (fails the subscription) on a bad file at start
    let watcher: FSWatcher | undefined;
    let pending: NodeJS.Timeout | undefined;
    const recheck = (): void => {
      pending = undefined;
      try {
        const text = readText(path);
        if (text === lastText) return;
        const value = read(path);
        lastText = text;
        subscriber.next(value);
      } catch (e) {
        opts.onError?.(e as Error);
      }
    };
    try {
      const name = basename(path);
      watcher = watch(dirname(path), (_event, file) => {
        if (file !== null && file !== name && !String(file).startsWith('..')) return;
        if (pending) clearTimeout(pending);
        pending = setTimeout(recheck, opts.debounceMs ?? 100);
      });
      watcher.on('error', (e) => opts.onError?.(e));
    } catch (e) {
      // NOTE: the directory may not exist (no mesh config mounted): defaults, nothing to watch.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') opts.onError?.(e as Error);
    }
    return () => {
      watcher?.close();
      if (pending) clearTimeout(pending);
    };
  });
}

/** The mesh config as model inputs: the initial value, then each change. */
export function meshConfigSource(path: string, opts: WatchedFileOptions = {}): Observable<ModelInput> {
  return new Observable<ModelInput>((subscriber) =>
    watchedFile(path, readMeshConfig, opts).subscribe({
      next: (meshConfig) => subscriber.next({ kind: 'meshConfig', meshConfig }),
      error: (e: unknown) => subscriber.error(e),
    }),
  );
}

/** The mesh networks as model inputs: the initial value, then each change. */
export function meshNetworksSource(path: string, opts: WatchedFileOptions = {}): Observable<ModelInput> {
  return new Observable<ModelInput>((subscriber) =>
    watchedFile(path, readMeshNetworks, opts).subscribe({
      next: (networks) => subscriber.next({ kind: 'networks', networks }),
      error: (e: unknown) => subscriber.error(e),
    }),
  );
}
