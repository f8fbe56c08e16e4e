/**
 * `meshctl x describe pod|service`: reads the cluster through the API server, translates Services the way
 * meshd's orchestrator registry does, and prints inspect/'s explanation, with the request simulator run over
 * the sidecar configuration meshd's generators would build (offline-sidecar.ts).
 */
import type { V1EndpointSlice, V1Pod, V1Service } from '@kubernetes/client-node';
import { defaultMeshConfig, type Config, type MeshConfig } from '../../core/index.js';
import { MeshConfigError, parseMeshConfig, serviceEntryFromService, type OrchLookup } from '../../controllers/index.js';
import {
  describePod,
  describeService,
  DescribeNotFoundError,
  readDescribeCluster,
  splitsOf,
  splitTarget,
  type DescribeCluster,
  type DescribedPod,
  type RouteSimulator,
  type ServiceObject,
} from '../../inspect/index.js';
import { simulateRequest } from '../../xds/index.js';
import { CliError, type RunContext } from '../framework/index.js';
import { getOptional, meshctlOrchClient } from './meshctl-orch.js';
import { buildOffline, proxyNodeFor, type OfflineMesh } from './offline-sidecar.js';

const DOMAIN = 'cluster.local';
const CLUSTER_ID = 'Kubernetes';

/** The mesh config of the control plane (ConfigMap `mesh`, key `mesh`), else the defaults. */
async function readMeshConfig(client: ReturnType<typeof meshctlOrchClient>, meshNamespace: string): Promise<MeshConfig> {
  const cm = await getOptional<{ data?: Record<string, string> }>(client, `/api/v1/namespaces/${encodeURIComponent(meshNamespace)}/configmaps/mesh`);
  const text = cm?.data?.['mesh'];
  if (text === undefined) return defaultMeshConfig();
  try {
    return parseMeshConfig(`ConfigMap ${meshNamespace}/mesh key mesh`, text);
  } catch (e) {
    if (e instanceof MeshConfigError) throw new CliError(e.message);
    throw e;
  }
}

/** Services -> ServiceEntries with the registry's translation (endpoints from the EndpointSlices). */
function translator(meshConfig: MeshConfig): (services: readonly ServiceObject[], slices: readonly Record<string, unknown>[], pods: readonly DescribedPod[]) => Config[] {
  return (services, slices, pods) => {
    const byName = new Map(pods.map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, p as unknown as V1Pod]));
    const byIp = new Map(pods.filter((p) => p.status?.podIP).map((p) => [p.status!.podIP!, p as unknown as V1Pod]));
    const lookup: OrchLookup = {
      pod: (ns, name) => byName.get(`${ns}/${name}`),
      podByIp: (ip) => byIp.get(ip),
      node: () => undefined,
      namespace: () => undefined,
      workloadEntries: () => [],
    };
    const opts = { domain: DOMAIN, clusterId: CLUSTER_ID, trustDomain: meshConfig.trustDomain, externalNameAlias: false, selectWorkloadEntries: false };
    return services.map((s) => {
      const ns = s.metadata.namespace ?? '';
      const mine = (slices as unknown as readonly V1EndpointSlice[]).filter((sl) => sl.metadata?.namespace === ns && sl.metadata.labels?.['kubernetes.io/service-name'] === s.metadata.name);
      return serviceEntryFromService(s as unknown as V1Service, mine, lookup, opts).config;
    });
  };
}

/** The simulator: one offline sidecar (no labels) per client namespace, built once. */
function simulator(cluster: DescribeCluster): RouteSimulator {
  const built = new Map<string, OfflineMesh>();
  return (from, svc, port) => {
    let mesh = built.get(from);
    if (!mesh) {
      mesh = buildOffline(cluster.configs, cluster.meshConfig, proxyNodeFor(from, '', cluster.configs, cluster.domain), cluster.domain);
      built.set(from, mesh);
    }
    const ip = svc.spec?.clusterIP;
    const r = simulateRequest(mesh.config, {
      direction: 'outbound',
      protocol: 'http',
      port,
      method: 'GET',
      path: '/',
      host: `${svc.metadata.name}.${svc.metadata.namespace ?? ''}:${port}`,
      ...(ip && ip !== 'None' ? { address: ip } : {}),
    });
    return { outcome: r.outcome, splits: splitsOf(r.clusters ?? []) };
  };
}

async function runDescribe(ctx: RunContext, kind: 'pod' | 'service'): Promise<number> {
  const client = meshctlOrchClient(ctx, `describing the ${kind}`);
  const defaultNs = ctx.flags.string('namespace') || 'default';
  const { name, namespace } = splitTarget(ctx.args[0] ?? '', defaultNs);
  const meshConfig = await readMeshConfig(client, ctx.flags.string('meshNamespace'));
  const cluster = await readDescribeCluster(client, { namespace: defaultNs, meshConfig, domain: DOMAIN, translate: translator(meshConfig) });
  const opts = { ignoreUnmeshed: ctx.flags.bool('ignoreUnmeshed'), simulate: simulator(cluster) };
  try {
    const lines = kind === 'pod' ? describePod(cluster, name, namespace, opts) : describeService(cluster, name, namespace, opts);
    ctx.io.stdout.write(`${lines.join('\n')}\n`);
  } catch (e) {
    if (e instanceof DescribeNotFoundError) throw new CliError(e.message);
    throw e;
  }
  return 0;
}

/** Runs `meshctl x describe pod <pod>[.<namespace>]`. */
export function runDescribePod(ctx: RunContext): Promise<number> {
  return runDescribe(ctx, 'pod');
}

/** Runs `meshctl x describe service <svc>[.<namespace>]`. */
export function runDescribeService(ctx: RunContext): Promise<number> {
  return runDescribe(ctx, 'service');
}
