/**
 * In-process cost of sidecar build+encode with and without the XdsCache: S services (2 HTTP ports,
 * a DestinationRule with 2 subsets and a weighted VirtualService each, 2 endpoints), N sidecars in 4
 * namespaces. Prints CPU ms for a full push to all N (every type, following references as Envoy does),
 * cache off, cache on and cold, and cache on after a VirtualService edit (routes rebuilt, clusters hit).
 * Usage: node dist/hack/bench/xds/sidecar-cache-cost.js [S=200] [N=50]
 */
import { cpuUsage } from 'node:process';
import { proxyFromNode, proxyRequestPush, withSnapshot, type Proxy, type PushRequest } from '../../../core/index.js';
import { XdsCache } from '../../../xds/cache/xds-cache.js';
import { decode } from '../../../xds/protos/codec.js';
import { protoRoot } from '../../../xds/protos/root.js';
import { TYPE_URL } from '../../../xds/server/contracts.js';
import { SidecarGenerator } from '../../../xds/generators/sidecar/sidecar-generator.js';
import { ENVOY } from '../../../xds/generators/sidecar/sidecar-names.js';
import { edsNamesOf, rdsNamesOf, sidecarModel, sidecarNode } from '../../../xds/generators/sidecar/testing/sidecar-mesh.js';
import { configEvent, configsFromYaml } from '../../../xds/generators/testing/model-fixtures.js';

const S = Number(process.argv[2] ?? 200);
const N = Number(process.argv[3] ?? 50);

function vs(i: number, w: number): string {
  return `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: s${i}, namespace: ns${i % 4} }
spec:
  hosts: [s${i}.ns${i % 4}.svc.cluster.local]
  http:
  - route:
    - { destination: { host: s${i}.ns${i % 4}.svc.cluster.local, subset: v1 }, weight: ${w} }
    - { destination: { host: s${i}.ns${i % 4}.svc.cluster.local, subset: v2 }, weight: ${100 - w} }`;
}

function mesh(): string {
  const docs: string[] = [];
  for (let i = 0; i < S; i++) {
    const ns = `ns${i % 4}`;
    const host = `s${i}.${ns}.svc.cluster.local`;
    docs.push(`apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: s${i}, namespace: ${ns} }
spec:
  hosts: [${host}]
  addresses: [10.96.${Math.floor(i / 250)}.${(i % 250) + 1}]
  location: MESH_INTERNAL
  ports: [{ number: 8080, name: http, protocol: HTTP }, { number: 9090, name: http-admin, protocol: HTTP }]
  resolution: STATIC
  workloadSelector: { labels: { app: s${i} } }`);
    for (const v of [1, 2]) {
      docs.push(`apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: s${i}-v${v}, namespace: ${ns} }
spec: { address: 10.${v}.${Math.floor(i / 250)}.${(i % 250) + 1}, labels: { app: s${i}, version: v${v} }, serviceAccount: s${i} }`);
    }
    docs.push(`apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: s${i}, namespace: ${ns} }
spec:
  host: ${host}
  trafficPolicy: { connectionPool: { tcp: { maxConnections: 100 } } }
  subsets: [{ name: v1, labels: { version: v1 } }, { name: v2, labels: { version: v2 } }]`);
    docs.push(vs(i, 80));
  }
  return docs.join('\n---\n');
}

async function pushAll(gen: SidecarGenerator, proxies: readonly Proxy[], push: PushRequest): Promise<number> {
  const start = cpuUsage();
  for (const p of proxies) {
    const get = async (typeUrl: string, names: readonly string[], wildcard: boolean): Promise<Record<string, unknown>[]> => {
      const r = await gen.generate(p, { typeUrl, names: new Set(names), wildcard }, push);
      const typeName = { [TYPE_URL.listener]: ENVOY.listener, [TYPE_URL.cluster]: ENVOY.cluster }[typeUrl];
      return typeName ? r.resources.map((x) => decode(typeName, x.body)) : [];
    };
    const listeners = await get(TYPE_URL.listener, [], true);
    const clusters = await get(TYPE_URL.cluster, [], true);
    await get(TYPE_URL.route, rdsNamesOf(listeners), false);
    await get(TYPE_URL.endpoint, edsNamesOf(clusters), false);
  }
  const used = cpuUsage(start);
  return (used.user + used.system) / 1000;
}

async function main(): Promise<void> {
  protoRoot();
  const model = sidecarModel(mesh());
  const push = proxyRequestPush(model.snapshot);
  const proxies = Array.from({ length: N }, (_, n) =>
    proxyFromNode(sidecarNode({ id: `sidecar~10.9.0.${n + 1}~p${n}.ns${n % 4}~ns${n % 4}.svc.cluster.local`, ipAddresses: [`10.9.0.${n + 1}`], podName: `p${n}`, namespace: `ns${n % 4}`, metadata: { LABELS: { app: `client${n}` }, NAMESPACE: `ns${n % 4}` } })),
  );
  // NOTE: the same decode of LDS/CDS for references in every mode; it is part of every number below.
  const off = new SidecarGenerator({ sendUnhealthyEndpoints: false });
  await pushAll(off, proxies.slice(0, 2), push); // warm up the JIT
  const offMs = await pushAll(off, proxies, push);
  const cache = new XdsCache({ maxSize: 60000 });
  const on = new SidecarGenerator({ sendUnhealthyEndpoints: false, enableCache: true, enableCdsCache: true, enableRdsCache: true, cache });
  const coldMs = await pushAll(on, proxies, push);
  const warmMs = await pushAll(on, proxies, push);
  const req = model.apply(configsFromYaml(vs(0, 50)).map((c) => configEvent(c, 'updated')))!;
  model.rebuild();
  const edit = withSnapshot(req, model.snapshot);
  on.invalidate(edit);
  const vsEditMs = await pushAll(on, proxies, edit);
  const round = (x: number): number => Math.round(x);
  console.log(JSON.stringify({ S, N, cacheEntries: cache.size, cpuMs: { cacheOff: round(offMs), cacheOnCold: round(coldMs), cacheOnWarm: round(warmMs), cacheOnAfterVirtualServiceEdit: round(vsEditMs) }, perSidecarMs: { cacheOff: round(offMs / N), cacheOnCold: round(coldMs / N), afterVirtualServiceEdit: round(vsEditMs / N) } }));
}

await main();
