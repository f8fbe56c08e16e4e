/**
 * PILOT_ENABLE_EDS_FOR_HEADLESS_SERVICES end to end: a real meshd child process (`--registries
 * Orchestrator`) reads a headless Service (clusterIP None) and its EndpointSlice from a real API server;
 * an Envoy sidecar node over real gRPC ADS gets the Service's outbound cluster as ORIGINAL_DST by default
 * and, with the variable true, as EDS with both pods over EDS. The request simulator walks a TCP
 * connection to one pod IP on what the sidecar received. No traffic is sent (the pod IPs are data only).
 */
import assert from 'node:assert/strict';
import { CoreV1Api, DiscoveryV1Api, type KubeConfig } from '@kubernetes/client-node';
import { checkConsistency, decode, protoRoot, simulateRequest, TYPE_URL, typeNameOf, validate, type ProxyConfig } from '../xds/index.js';
import { edsNamesOf, rdsNamesOf } from '../xds/generators/sidecar/testing/sidecar-mesh.js';
import { AdsClient, type SotwResponse } from '../xds/testing/ads-client.js';
import { createTestNamespace, deleteNamespaceFully, e2eCluster, waitFor } from './harness/index.js';
import { MeshdProcess } from './orch-meshd-harness.js';

type Obj = Record<string, unknown>;

function resourcesOf(r: SotwResponse | undefined): Obj[] {
  if (!r) return [];
  const typeName = typeNameOf(r.typeUrl);
  return r.resources.map((x) => {
    assert.deepEqual(validate(typeName, x.body), [], `${r.typeUrl} ${x.name} passes protoc-gen-validate`);
    return decode(typeName, x.body) as Obj;
  });
}

describe('e2e: PILOT_ENABLE_EDS_FOR_HEADLESS_SERVICES with a headless Service from the API server', function () {
  this.timeout(240_000);
  let kc: KubeConfig;
  let core: CoreV1Api;
  let namespace: string;

  before(async () => {
    protoRoot();
    kc = e2eCluster().kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    namespace = await createTestNamespace(core, 'e2e-headless-eds');
    await core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'cassandra', namespace }, spec: { clusterIP: 'None', selector: { app: 'cassandra' }, ports: [{ name: 'tcp-cql', port: 9042, protocol: 'TCP' }] } },
    });
    await kc.makeApiClient(DiscoveryV1Api).createNamespacedEndpointSlice({
      namespace,
      body: {
        metadata: { name: 'cassandra-1', namespace, labels: { 'kubernetes.io/service-name': 'cassandra' } },
        addressType: 'IPv4',
        ports: [{ name: 'tcp-cql', port: 9042, protocol: 'TCP' }],
        endpoints: [{ addresses: ['10.80.0.5'], conditions: { ready: true } }, { addresses: ['10.80.0.6'], conditions: { ready: true } }],
      },
    });
  });

  after(async () => {
    if (namespace) await deleteNamespaceFully(core, namespace);
  });

  const cases = [
    { value: undefined, type: 'ORIGINAL_DST', endpoints: ['10.80.0.5:9042'] },
    { value: 'true', type: 'EDS', endpoints: ['10.80.0.5:9042', '10.80.0.6:9042'] },
  ] as const;
  for (const c of cases) {
    it(`given the variable ${c.value ?? 'unset'}, a sidecar should get the headless Service's cluster as ${c.type} and a connection to a pod IP should go to ${c.endpoints.join(' or ')}`, async () => {
      const meshd = await MeshdProcess.start(e2eCluster().kubeconfigPath, namespace, c.value === undefined ? {} : { PILOT_ENABLE_EDS_FOR_HEADLESS_SERVICES: c.value });
      const cluster = `outbound|9042||cassandra.${namespace}.svc.cluster.local`;
      const client = new AdsClient({
        address: meshd.xdsAddress,
        node: { id: `sidecar~10.80.1.1~client-0.${namespace}~${namespace}.svc.cluster.local`, metadata: { NAMESPACE: namespace, LABELS: { app: 'client' } } },
        autoAck: true,
      });
      try {
        client.subscribe(TYPE_URL.cluster);
        client.subscribe(TYPE_URL.listener);
        const clusters = await waitFor('CDS with the headless Service', async () => {
          const got = resourcesOf(client.latest(TYPE_URL.cluster));
          return got.some((x) => x['name'] === cluster) ? got : undefined;
        }, 60_000, 100);
        // NOTE: PILOT_ENABLE_HEADLESS_SERVICE_POD_LISTENERS defaults on: a listener per pod, pushed once the EndpointSlice is read.
        const listeners = await waitFor('LDS with the pod listener', async () => {
          const got = resourcesOf(client.latest(TYPE_URL.listener));
          return got.some((x) => x['name'] === '10.80.0.5_9042') ? got : undefined;
        }, 30_000, 100);
        assert.equal(clusters.find((x) => x['name'] === cluster)!['type'], c.type);
        const eds = edsNamesOf(clusters);
        client.subscribe(TYPE_URL.endpoint, eds);
        const endpoints = await waitFor('EDS', async () => {
          const got = resourcesOf(client.latest(TYPE_URL.endpoint));
          return got.length === eds.length ? got : undefined;
        }, 30_000, 100);
        const rds = rdsNamesOf(listeners);
        client.subscribe(TYPE_URL.route, rds);
        const routes = rds.length === 0 ? [] : await waitFor('RDS', async () => {
          const got = resourcesOf(client.latest(TYPE_URL.route));
          return got.length === rds.length ? got : undefined;
        }, 30_000, 100);
        const cfg: ProxyConfig = { listeners, routes, clusters, endpoints };
        assert.deepEqual(checkConsistency(cfg), []);
        const walk = simulateRequest(cfg, { protocol: 'tcp', address: '10.80.0.5', port: 9042 });
        assert.deepEqual([walk.outcome, walk.clusters?.map((x) => [x.name, [...x.endpoints].sort()])], ['routed', [[cluster, c.endpoints]]]);
      } catch (err) {
        throw new Error(`${(err as Error).message}\n--- meshd output (tail) ---\n${meshd.log.slice(-3000)}`);
      } finally {
        client.close();
        await meshd.stop();
      }
    });
  }
});
