/** The benchmark's clients: node identities and metadata as a real sidecar or proxyless gRPC client sends them. */
import type { ClientSpec, ProxyType } from './bench-client.js';
import type { XdsProtocol } from './subscriptions.js';
import { benchService, DOMAIN, listenerName, newService } from './config-gen.js';
import type { EditPlan } from './markers.js';

/** What client generation needs to know. */
export interface ClientPlan {
  readonly proxies: number;
  readonly proxyType: ProxyType;
  /** The ADS variant the clients speak. */
  readonly xds: XdsProtocol;
  readonly services: number;
  readonly namespaces: number;
  readonly listenersPerClient: number;
}

/** The pod IP of client `j` (in 10.251.0.0/16 and up, away from the services' endpoints). */
export function clientIp(j: number): string {
  return `10.${251 + Math.floor(j / 65536)}.${Math.floor(j / 256) % 256}.${j % 256}`;
}

/**
 * The listeners proxyless client `j` asks for: the edited service (`svc-0`, so every client sees every
 * edit), `listenersPerClient - 1` other services spread by a fixed stride, and the hosts that the
 * "new ServiceEntry" edits will create (a client that starts before its dependency exists).
 */
export function clientListeners(j: number, plan: ClientPlan, edits: EditPlan): string[] {
  const names = new Set<string>([listenerName(benchService(0, plan.namespaces))]);
  for (let k = 1; names.size < Math.min(plan.listenersPerClient, plan.services); k++) {
    names.add(listenerName(benchService((j * 7919 + k * 104729) % plan.services, plan.namespaces)));
    if (k > plan.listenersPerClient * 4) break;
  }
  for (const e of edits.edits) if (e.scenario === 'new-service') names.add(listenerName(newService(e.marker)));
  return [...names];
}

/** Every client of a run. */
export function clientSpecs(plan: ClientPlan, edits: EditPlan): ClientSpec[] {
  const specs: ClientSpec[] = [];
  for (let j = 0; j < plan.proxies; j++) {
    const ns = `ns-${j % plan.namespaces}`;
    const app = `client-${j % 50}`;
    const pod = `${app}-${j.toString(36).padStart(5, '0')}`;
    const ip = clientIp(j);
    const metadata: Record<string, unknown> = {
      NAME: pod,
      NAMESPACE: ns,
      LABELS: { app, version: 'v1', 'security.mesh.io/tlsMode': 'mesh' },
      CLUSTER_ID: 'Kubernetes',
      INSTANCE_IPS: ip,
      SERVICE_ACCOUNT: `${app}-sa`,
      WORKLOAD_NAME: app,
      OWNER: `kubernetes://apis/apps/v1/namespaces/${ns}/deployments/${app}`,
      MESH_ID: DOMAIN,
      MESH_VERSION: '0.1.0',
      ...(plan.proxyType === 'grpc' ? { GENERATOR: 'grpc' } : { POD_PORTS: '[{"name":"grpc","containerPort":8080,"protocol":"TCP"}]', INTERCEPTION_MODE: 'REDIRECT' }),
    };
    specs.push({
      id: j,
      proxyType: plan.proxyType,
      protocol: plan.xds,
      node: { id: `sidecar~${ip}~${pod}.${ns}~${ns}.svc.${DOMAIN}`, cluster: `${app}.${ns}`, metadata, locality: {} },
      listeners: plan.proxyType === 'grpc' ? clientListeners(j, plan, edits) : [],
    });
  }
  return specs;
}
