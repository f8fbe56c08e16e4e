/** The configs and proxies the record/replay tests of this folder drive meshd with. */
import { ECHO_HOST, ECHO_SERVICE_ENTRY_YAML } from '../../generators/testing/model-fixtures.js';

export const HOST = ECHO_HOST;
/** The proxyless clusters of the echo service: all, subset v1, subset v2. */
export const CLUSTERS = ['', 'v1', 'v2'].map((s) => `outbound|50051|${s}|${HOST}`);

/** The echo ServiceEntry and a DestinationRule with subsets v1 and v2. */
export const SERVICE = `${ECHO_SERVICE_ENTRY_YAML}
---
apiVersion: networking.mesh.io/v1
kind: DestinationRule
metadata: { name: echo, namespace: qs }
spec:
  host: ${HOST}
  subsets: [{ name: v1, labels: { version: v1 } }, { name: v2, labels: { version: v2 } }]
`;

/** A VirtualService splitting echo between v1 and v2. */
export const split = (v1: number, v2: number): string => `apiVersion: networking.mesh.io/v1
kind: VirtualService
metadata: { name: echo, namespace: qs }
spec:
  hosts: [${HOST}]
  http: [{ route: [{ destination: { host: ${HOST}, subset: v1 }, weight: ${v1} }, { destination: { host: ${HOST}, subset: v2 }, weight: ${v2} }] }]
`;

/** A WorkloadEntry of echo with version `name`. */
export const workload = (name: string, address: string): string => `apiVersion: networking.mesh.io/v1
kind: WorkloadEntry
metadata: { name: ${name}, namespace: qs }
spec: { address: ${address}, labels: { app: echo, version: ${name} } }
`;

/** A proxyless gRPC node of pod `pod` in namespace qs. */
export const node = (pod: string): { id: string; metadata: Record<string, unknown> } => ({
  id: `sidecar~10.0.1.1~${pod}.qs~qs.svc.cluster.local`,
  metadata: { GENERATOR: 'grpc', NAMESPACE: 'qs' },
});
