/**
 * The body of `meshctl proxy-config`: reads a proxy's config dump (live through the admin API, or a file)
 * and writes istioctl's short tables or the selected JSON/YAML.
 */
import { readFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { podHttpGet, podHttpRequest, ReachError, dotted, type PodDialer, type PodRef } from '../reach/index.js';
import { clusterTable, filterClusters, type ClusterFilter } from './cluster-table.js';
import { parseConfigDump, type ConfigDump, type Json } from './config-dump.js';
import { endpointsFromClusters, endpointsFromDump, endpointTable, filterEndpoints, type EndpointFilter, type EndpointRow } from './endpoint-table.js';
import { filterListeners, listenerTable, type ListenerFilter } from './listener-table.js';
import { filterRoutes, routeTable, type RouteFilter } from './route-table.js';
import { redactSecrets, secretRows, secretTable } from './secret-table.js';
import { formatTable } from './text-table.js';

/** The `proxy-config` subcommands that read a config dump. */
export const PROXY_CONFIG_KINDS = ['all', 'bootstrap', 'cluster', 'endpoint', 'listener', 'routes', 'secret', 'ecds'] as const;
/** One of {@link PROXY_CONFIG_KINDS}. */
export type ProxyConfigKind = (typeof PROXY_CONFIG_KINDS)[number];

/** Output formats of proxy-config. */
export const PROXY_CONFIG_OUTPUTS = ['short', 'json', 'yaml'] as const;
/** One of {@link PROXY_CONFIG_OUTPUTS}. */
export type ProxyConfigOutput = (typeof PROXY_CONFIG_OUTPUTS)[number];

/** Where the configuration comes from. */
export interface ProxyConfigSource {
  /** The config dump (with EDS, so endpoints are in it). */
  configDump(): Promise<ConfigDump>;
  /** Envoy's `/clusters?format=json`; undefined for a file (endpoints come from the dump). */
  clusterStatuses(): Promise<Json | undefined>;
}

/** What to show. */
export interface ProxyConfigOptions extends ClusterFilter, ListenerFilter, RouteFilter {
  readonly kind: ProxyConfigKind;
  readonly output: ProxyConfigOutput;
  readonly verbose: boolean;
  /** Endpoint filters (`--address`, `--port` are shared with listeners). */
  readonly endpoint?: EndpointFilter;
  /** Wall time, for certificate validity. */
  readonly now: Date;
}

/** A config dump read from a file (`-f`). */
export function fileConfigSource(path: string): ProxyConfigSource {
  return {
    configDump: async () => {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (e) {
        throw new ReachError(`--file ${path}: ${(e as Error).message}`);
      }
      return parseConfigDump(text, path);
    },
    clusterStatuses: () => Promise.resolve(undefined),
  };
}

/** The live configuration of the proxy in `pod`, through its admin API on `adminPort`. */
export function podConfigSource(dial: PodDialer, pod: PodRef, adminPort: number): ProxyConfigSource {
  return {
    configDump: async () => parseConfigDump(await podHttpGet(dial, pod, adminPort, '/config_dump?include_eds'), `config dump of pod ${dotted(pod)}`),
    clusterStatuses: async () => {
      const text = await podHttpGet(dial, pod, adminPort, '/clusters?format=json');
      try {
        return JSON.parse(text) as Json;
      } catch (e) {
        throw new ReachError(`/clusters?format=json of pod ${dotted(pod)}: not JSON: ${(e as Error).message}`);
      }
    },
  };
}

function serialize(v: unknown, output: ProxyConfigOutput): string {
  return output === 'yaml' ? stringify(v) : `${JSON.stringify(v, null, 2)}\n`;
}

async function endpointRows(source: ProxyConfigSource, dump: () => Promise<ConfigDump>): Promise<EndpointRow[]> {
  const live = await source.clusterStatuses();
  return live ? endpointsFromClusters(live) : endpointsFromDump((await dump()).loadAssignments());
}

/**
 * Renders one `proxy-config` view.
 * @throws ReachError when the source cannot be read or lacks the section asked for
 */
export async function renderProxyConfig(source: ProxyConfigSource, o: ProxyConfigOptions): Promise<string> {
  let cached: ConfigDump | undefined;
  const dump = async (): Promise<ConfigDump> => (cached ??= await source.configDump());
  const structured = o.output !== 'short';
  switch (o.kind) {
    case 'cluster': {
      const clusters = filterClusters((await dump()).clusters(), o);
      return structured ? serialize(clusters, o.output) : clusterTable(clusters);
    }
    case 'listener': {
      const listeners = filterListeners((await dump()).listeners(), o);
      return structured ? serialize(listeners, o.output) : listenerTable(listeners, o.verbose);
    }
    case 'routes': {
      const routes = filterRoutes((await dump()).routeConfigs(), o);
      return structured ? serialize(routes, o.output) : routeTable(routes, o.verbose);
    }
    case 'endpoint': {
      const rows = filterEndpoints(await endpointRows(source, dump), o.endpoint ?? {});
      return structured ? serialize(rows, o.output) : endpointTable(rows);
    }
    case 'secret': {
      const d = await dump();
      return structured ? serialize(redactSecrets(d.section('SecretsConfigDump') ?? {}), o.output) : secretTable(secretRows(d.secrets(), o.now));
    }
    case 'bootstrap': {
      const d = await dump();
      const b = d.section('BootstrapConfigDump');
      if (!b) throw new ReachError(`${d.source}: no bootstrap in the config dump`);
      return serialize(b, o.output === 'yaml' ? 'yaml' : 'json');
    }
    case 'ecds': {
      const filters = (await dump()).extensionConfigs();
      if (structured) return serialize(filters, o.output);
      return formatTable(['ECDS NAME', 'TYPE'], filters.map((f) => [String((f['ecds_filter'] as Json | undefined)?.['name'] ?? ''), String(((f['ecds_filter'] as Json | undefined)?.['typed_config'] as Json | undefined)?.['@type'] ?? '')]));
    }
    case 'all': {
      const d = await dump();
      if (structured) return serialize(redactSecrets(d.raw), o.output);
      const parts = [
        clusterTable(filterClusters(d.clusters(), o)),
        listenerTable(filterListeners(d.listeners(), o), o.verbose),
        routeTable(filterRoutes(d.routeConfigs(), o), o.verbose),
        endpointTable(endpointsFromDump(d.loadAssignments())),
        secretTable(secretRows(d.secrets(), o.now)),
      ];
      return parts.join('\n');
    }
  }
}

/** Envoy's log levels (`warn` is Envoy's short form of warning). */
export const PROXY_LOG_LEVELS = ['trace', 'debug', 'info', 'warning', 'warn', 'error', 'critical', 'off'] as const;

/**
 * Parses `--level`: `<level>` for every logger, or `<logger>:<level>[,<logger>:<level>...]`, into the
 * admin queries to POST (`level=debug`, `http=debug`).
 * @throws ReachError naming the bad part
 */
export function parseLogLevel(text: string): string[] {
  return text.split(',').map((part) => {
    const [logger, level] = part.includes(':') ? (part.split(':', 2) as [string, string]) : ['level', part];
    if (!(PROXY_LOG_LEVELS as readonly string[]).includes(level)) {
      throw new ReachError(`--level "${text}": unknown level "${level}" (use one of ${PROXY_LOG_LEVELS.join(', ')})`);
    }
    if (logger === '' || !/^[a-z0-9_]+$/i.test(logger)) throw new ReachError(`--level "${text}": "${logger}" is not a logger name`);
    return `${logger}=${level}`;
  });
}

/**
 * `proxy-config log`: sets levels when asked (`--reset` sets every logger to `warning`, then `--level`
 * applies), then reads the loggers. Returns `<pod>.<ns>:` and Envoy's `active loggers:` text.
 * @throws ReachError when the admin API refuses a level (an unknown logger) or cannot be reached
 */
export async function proxyLogLevels(dial: PodDialer, pod: PodRef, adminPort: number, o: { readonly level: string; readonly reset: boolean }): Promise<string> {
  const queries = [...(o.reset ? ['level=warning'] : []), ...(o.level ? parseLogLevel(o.level) : [])];
  let body = '';
  for (const q of queries.length > 0 ? queries : ['']) {
    const path = q === '' ? '/logging' : `/logging?${q}`;
    const res = await podHttpRequest(dial, pod, adminPort, { method: 'POST', path });
    body = res.body.toString('utf8');
    if (res.status < 200 || res.status >= 300) throw new ReachError(`POST ${path} on pod ${dotted(pod)} port ${adminPort}: HTTP ${res.status}: ${body.trim().slice(0, 300)}`);
  }
  return `${dotted(pod)}:\n${body.endsWith('\n') ? body : `${body}\n`}`;
}
