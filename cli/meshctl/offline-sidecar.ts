/**
 * The offline meshd behind `meshctl x simulate` and `meshctl x translate`: reads mesh.io files the way
 * `pilot-discovery --configDir` does (same parser, validation and error messages), and Kubernetes
 * Services, EndpointSlices, Endpoints and Pods as meshd's orchestrator registry would (offline-orch.ts), folds them into a
 * MeshModel, and builds what meshd's generators would serve one proxy, a sidecar or a router (gateway)
 * (LDS and CDS, then the RDS and EDS names they reference, as Envoy asks), with the generator options meshd
 * reads from the same environment variables (offlineOptionsFromEnv). No network, no cluster, no running meshd.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { MeshModel, defaultMeshConfig, loadEnv, modelOptionsFromEnv, proxyFromNode, proxyRequestPush, type Config, type Env, type MeshConfig, type ModelInput, type Proxy, type ProxyNode } from '../../core/index.js';
import { MeshConfigError, readMeshConfig, scanFile } from '../../controllers/index.js';
import { buildRouterResources, buildSidecarResources, generatorOptionsFromEnv, routerListenPorts, routerServerConflicts, TYPE_URL, type GrpcGeneratorOptions, type ProxyConfig } from '../../xds/index.js';
import { parseAllDocuments } from 'yaml';
import { CliError, type RunContext } from '../framework/index.js';
import { inputFiles } from './analyze-run.js';
import { DEFAULT_PROXY_IP } from './offline-flags.js';
import { orchInputs, type OrchDocument } from './offline-orch.js';

/** Kubernetes kinds a user may give: Services, Endpoints, EndpointSlices and Pods are translated (offline-orch.ts); others refused. */
const ORCH_KINDS = new Set(['Service', 'Endpoints', 'EndpointSlice', 'Pod', 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet']);
/** What the files and the chosen proxy add up to. */
export interface OfflineMesh {
  readonly configs: readonly Config[];
  readonly meshConfig: MeshConfig;
  readonly proxy: Proxy;
  /** Every resource the sidecar gets, as plain objects (built, not decoded). */
  readonly config: ProxyConfig;
  readonly domain: string;
  /** For a router: the port it listens on for each of its service ports (Service port 80 -> container port 8080). */
  readonly listenPorts: ReadonlyMap<number, number>;
  /** What meshd would leave out for this proxy and why (a router's Gateway servers that conflict on a port). */
  readonly warnings: readonly string[];
}

/** What `-f` inputs hold: mesh.io configs (with the ServiceEntries of orchestrator Services), and proxies Pods add. */
export interface InputFiles {
  readonly configs: Config[];
  /** WorkloadEntry-shaped Pods, for `--proxy <namespace>/<pod>` only (see offline-orch.ts). */
  readonly proxies: Config[];
}

/** Reads `-f` inputs with meshd's file parser; any rejected document fails the command, naming file, document, object and field. */
export async function readConfigFiles(paths: readonly string[], recursive: boolean, cwd: string, opts: { domain?: string; trustDomain?: string } = {}): Promise<Config[]> {
  return (await readInputFiles(paths, recursive, cwd, opts)).configs;
}

/**
 * As readConfigFiles, plus orchestrator objects: Services (with EndpointSlices, Endpoints or Pods)
 * become the ServiceEntries meshd's orchestrator registry would make; Pods become proxies.
 */
export async function readInputFiles(paths: readonly string[], recursive: boolean, cwd: string, opts: { domain?: string; trustDomain?: string } = {}): Promise<InputFiles> {
  if (paths.length === 0) throw new CliError('no input: give mesh.io files or directories with -f');
  const configs = new Map<string, { config: Config; file: string }>();
  const problems: string[] = [];
  const orch: OrchDocument[] = [];
  for (const p of paths) {
    if (p === '-') throw new CliError('-f -: standard input is not supported; give files or directories');
    const abs = resolve(cwd, p);
    for (const file of inputFiles(abs, recursive)) {
      // NOTE: name files as the user gave them (meshd names them relative to --configDir).
      const shown = file === abs ? p : join(p, relative(abs, file));
      const entry = await scanFile(file, { dir: dirname(file), defaultNamespace: 'default' }, '');
      let orchInFile = false;
      for (const r of entry.rejected) {
        if (ORCH_KINDS.has(r.kind)) {
          orchInFile = true;
          continue;
        }
        problems.push(r.message.startsWith(`${r.file}:`) ? `${shown}${r.message.slice(r.file.length)}` : r.message);
      }
      // NOTE: meshd's parser refuses orchestrator kinds; read those documents again as plain YAML.
      if (orchInFile) {
        parseAllDocuments(readFileSync(file, 'utf8')).forEach((d, i) => {
          const o = d.toJS() as Record<string, unknown> | null;
          if (o && typeof o === 'object' && ORCH_KINDS.has(String(o['kind']))) orch.push({ file: shown, document: i + 1, object: o });
        });
      }
      for (const c of entry.configs) {
        const prev = configs.get(c.key);
        if (prev) problems.push(`${shown}: document ${c.document} (${c.config.kind} ${c.config.metadata.namespace}/${c.config.metadata.name}): also defined in ${prev.file}`);
        else configs.set(c.key, { config: c.config, file: shown });
      }
    }
  }
  if (problems.length > 0) throw new CliError(`invalid input (meshd would refuse it):\n  ${problems.join('\n  ')}`);
  const fromOrch = orchInputs(orch, { domain: opts.domain ?? 'cluster.local', trustDomain: opts.trustDomain ?? 'cluster.local' });
  return { configs: [...[...configs.values()].map((v) => v.config), ...fromOrch.configs], proxies: fromOrch.proxies };
}

function parseLabels(text: string, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of text.split(',').filter((s) => s !== '')) {
    const i = kv.indexOf('=');
    if (i <= 0) throw new CliError(`--proxy ${what}: "${kv}" is not <label>=<value>`);
    out[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return out;
}

const PROXY_TYPES = ['sidecar', 'router'] as const;

/** Whether a Gateway in the files selects workloads with these labels (then the proxy is a router). */
function selectedByGateway(labels: Readonly<Record<string, string>>, configs: readonly Config[]): boolean {
  return configs.some((c) => {
    const sel = c.kind === 'Gateway' ? (c.spec as { selector?: Record<string, string> }).selector : undefined;
    return sel !== undefined && Object.keys(sel).length > 0 && Object.entries(sel).every(([k, v]) => labels[k] === v);
  });
}

/**
 * The node `--proxy` names (see the flag), taking labels, IP, service account and locality from its
 * WorkloadEntry; `proxyType` '' picks router when a Gateway selects its labels, else sidecar.
 */
export function proxyNodeFor(spec: string, proxyIp: string, configs: readonly Config[], domain: string, proxyType = 'sidecar'): ProxyNode {
  if (proxyType !== '' && !(PROXY_TYPES as readonly string[]).includes(proxyType)) throw new CliError(`--proxy-type: unknown proxy type "${proxyType}" (use sidecar or router)`);
  if (spec === '') throw new CliError('--proxy is required: <namespace>/<WorkloadEntry name>, <namespace>/<label>=<value>, or <namespace>');
  let namespace: string;
  let rest = '';
  if (spec.includes('/')) [namespace, rest] = [spec.slice(0, spec.indexOf('/')), spec.slice(spec.indexOf('/') + 1)];
  else if (spec.includes('.')) [rest, namespace] = [spec.slice(0, spec.indexOf('.')), spec.slice(spec.indexOf('.') + 1)];
  else namespace = spec;
  if (namespace === '') throw new CliError(`--proxy ${spec}: no namespace`);
  const entries = configs.filter((c) => c.kind === 'WorkloadEntry' && c.metadata.namespace === namespace);
  const specOf = (c: Config): { address?: string; labels?: Record<string, string>; serviceAccount?: string; locality?: string } => (c.spec ?? {}) as never;
  let labels: Record<string, string> = {};
  let we: Config | undefined;
  if (rest.includes('=')) {
    labels = parseLabels(rest, spec);
    we = entries.find((c) => Object.entries(labels).every(([k, v]) => specOf(c).labels?.[k] === v));
  } else if (rest !== '') {
    we = entries.find((c) => c.metadata.name === rest);
    if (!we) {
      const known = entries.map((c) => c.metadata.name).sort();
      throw new CliError(`--proxy ${spec}: no WorkloadEntry ${namespace}/${rest} in the files${known.length ? ` (WorkloadEntries in ${namespace}: ${known.join(', ')})` : ''}; or give labels: ${namespace}/app=<name>`);
    }
    labels = { ...(specOf(we).labels ?? {}) };
  }
  const s = we ? specOf(we) : {};
  const ip = proxyIp || (s.address && !s.address.startsWith('unix://') ? s.address : DEFAULT_PROXY_IP);
  const pod = we?.metadata.name ?? 'simulated';
  const [region = '', zone = '', subZone = ''] = (s.locality ?? '').split('/');
  const type = proxyType === '' ? (selectedByGateway(labels, configs) ? 'router' : 'sidecar') : (proxyType as (typeof PROXY_TYPES)[number]);
  return {
    id: `${type}~${ip}~${pod}.${namespace}~${namespace}.svc.${domain}`,
    type,
    ipAddresses: [ip],
    podName: pod,
    namespace,
    dnsDomain: `${namespace}.svc.${domain}`,
    metadata: { LABELS: labels, NAMESPACE: namespace, ...(s.serviceAccount ? { SERVICE_ACCOUNT: s.serviceAccount } : {}) },
    locality: { region, zone, subZone },
    proxyless: false,
  };
}

function rdsNamesOf(listeners: readonly Record<string, unknown>[]): string[] {
  const names = new Set<string>();
  for (const l of listeners) {
    for (const fc of (l['filterChains'] as Record<string, unknown>[] | undefined) ?? []) {
      for (const f of (fc['filters'] as Record<string, unknown>[] | undefined) ?? []) {
        const rds = (f['typedConfig'] as { rds?: { routeConfigName?: string } } | undefined)?.rds;
        if (rds?.routeConfigName) names.add(rds.routeConfigName);
      }
    }
  }
  return [...names].sort();
}

function edsNamesOf(clusters: readonly Record<string, unknown>[]): string[] {
  return clusters
    .filter((c) => c['type'] === 'EDS')
    .map((c) => (c['edsClusterConfig'] as { serviceName?: string } | undefined)?.serviceName || (c['name'] as string))
    .sort();
}

/**
 * The options meshd's generators and model build with, as meshd reads them from the environment at start
 * (generatorOptionsFromEnv, modelOptionsFromEnv: the same functions, variables and errors), so that an offline
 * build shows what a meshd started with that environment would serve.
 */
export interface OfflineBuildOptions {
  /** The generator options (absent fields: istiod's defaults). */
  readonly generator?: Partial<GrpcGeneratorOptions>;
  /** PILOT_DRAINING_LABEL (default `mesh.io/draining`). */
  readonly drainingLabel?: string;
}

/**
 * The offline build's options from an environment, read with meshd's own functions: an invalid value (or one
 * meshd refuses, such as PILOT_ENABLE_MYSQL_FILTER=true) throws the error meshd stops with.
 */
export function offlineOptionsFromEnv(env: Env, domain: string): OfflineBuildOptions {
  return { generator: generatorOptionsFromEnv(env), drainingLabel: modelOptionsFromEnv(env, domain).drainingLabel };
}

/** Builds the model from `configs` and the resources the proxy would get (the generator code meshd runs for its type). */
export function buildOffline(configs: readonly Config[], meshConfig: MeshConfig, node: ProxyNode, domain: string, options: OfflineBuildOptions = {}): OfflineMesh {
  const model = new MeshModel({ domain, drainingLabel: options.drainingLabel ?? 'mesh.io/draining', debounceAfter: 0, debounceMax: 0, enableEdsDebounce: true, meshConfig });
  const inputs: ModelInput[] = configs.map((c) => ({
    kind: 'config',
    event: { type: 'added', key: { kind: c.kind, namespace: c.metadata.namespace, name: c.metadata.name }, object: c, resourceVersion: c.metadata.resourceVersion ?? '1' },
  }));
  model.apply(inputs);
  model.rebuild();
  const snap = proxyRequestPush(model.snapshot).snapshot;
  if (!snap) throw new Error('the model published no snapshot');
  const proxy = proxyFromNode(node);
  // NOTE: the cache options are left out: the offline build has no cache, and meshd's bytes are the same with it or without.
  const { enableCache: _c, enableCdsCache: _cds, enableRdsCache: _rds, cacheSize: _size, ...built } = options.generator ?? {};
  const opts = { ...built, sendUnhealthyEndpoints: built.sendUnhealthyEndpoints ?? false };
  const build = node.type === 'router' ? buildRouterResources : buildSidecarResources;
  const listeners = [...build(proxy, TYPE_URL.listener, snap, undefined, opts).values()];
  const clusters = [...build(proxy, TYPE_URL.cluster, snap, undefined, opts).values()];
  const routes = [...build(proxy, TYPE_URL.route, snap, rdsNamesOf(listeners), opts).values()];
  const endpoints = [...build(proxy, TYPE_URL.endpoint, snap, edsNamesOf(clusters), opts).values()];
  const listenPorts = node.type === 'router' ? routerListenPorts(proxy, snap) : new Map<number, number>();
  const warnings = node.type === 'router' ? routerServerConflicts(proxy, snap) : [];
  return { configs, meshConfig, proxy, config: { listeners, routes, clusters, endpoints }, domain, listenPorts, warnings };
}

/** Reads the flags of `offlineFlags` (offline-flags.ts), the files and the mesh config, and builds. */
export async function offlineMeshFromFlags(ctx: RunContext): Promise<OfflineMesh> {
  const f = ctx.flags;
  const cwd = process.cwd();
  // NOTE: read before any file, as meshd reads its environment before anything else.
  const options = offlineOptionsFromEnv(loadEnv('meshctl', ctx.io.env), f.string('domain'));
  let meshConfig = defaultMeshConfig();
  const mc = f.string('meshConfigFile');
  if (mc !== '') {
    // NOTE: readMeshConfig serves defaults for a missing file (meshd waits for it to appear); here a typo must fail.
    if (!existsSync(resolve(cwd, mc))) throw new CliError(`--meshConfigFile ${mc}: no such file`);
    try {
      meshConfig = readMeshConfig(resolve(cwd, mc));
    } catch (e) {
      if (e instanceof MeshConfigError) throw new CliError(`--meshConfigFile ${mc}: ${e.message}`);
      throw e;
    }
  }
  const domain = f.string('domain');
  const inputs = await readInputFiles(f.strings('filename'), f.bool('recursive'), cwd, { domain, trustDomain: meshConfig.trustDomain });
  // NOTE: Pods name proxies (`--proxy ns/pod`) but are not WorkloadEntries of the model (meshd's registry does not serve them so).
  const node = proxyNodeFor(f.string('proxy'), f.string('proxy-ip'), [...inputs.configs, ...inputs.proxies], domain, f.string('proxy-type'));
  return buildOffline(inputs.configs, meshConfig, node, domain, options);
}
