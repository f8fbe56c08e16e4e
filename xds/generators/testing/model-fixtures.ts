/**
 * Test fixtures: configs from YAML text, a MeshModel with debounce off, and proxy nodes.
 */
import { parseAllDocuments } from 'yaml';
import { MeshModel, type Config, type ConfigEvent, type MeshModelOptions, type ModelInput } from '../../../core/index.js';
import type { ProxyNode } from '../../server/contracts.js';

/** Parses YAML documents into configs (namespace defaults to `default`). */
export function configsFromYaml(text: string): Config[] {
  return parseAllDocuments(text)
    .map((d) => d.toJSON() as Config | null)
    .filter((c): c is Config => c !== null)
    .map((c) => ({ ...c, metadata: { ...c.metadata, namespace: c.metadata.namespace ?? 'default' } }));
}

/** An `added` (or given type) event for a config. */
export function configEvent(c: Config, type: ConfigEvent['type'] = 'added'): ModelInput {
  return {
    kind: 'config',
    event: {
      type,
      key: { kind: c.kind, namespace: c.metadata.namespace, name: c.metadata.name },
      object: c,
      resourceVersion: c.metadata.resourceVersion ?? '1',
    },
  };
}

/** A model with debounce off, domain cluster.local, draining label mesh.io/draining. */
export function testModel(over: Partial<MeshModelOptions> = {}): MeshModel {
  return new MeshModel({
    domain: 'cluster.local',
    drainingLabel: 'mesh.io/draining',
    debounceAfter: 0,
    debounceMax: 0,
    enableEdsDebounce: true,
    ...over,
  });
}

/** A proxyless node in `namespace`. */
export function grpcNode(namespace: string, over: Partial<ProxyNode> = {}): ProxyNode {
  return {
    id: `sidecar~10.0.0.1~client.${namespace}~${namespace}.svc.cluster.local`,
    type: 'sidecar',
    ipAddresses: ['10.0.0.1'],
    podName: 'client',
    namespace,
    dnsDomain: `${namespace}.svc.cluster.local`,
    metadata: { GENERATOR: 'grpc' },
    proxyless: true,
    ...over,
  };
}

/** The host of the echo service the integration tests route to. */
export const ECHO_HOST = 'echo.qs.svc.cluster.local';

/** The ServiceEntry document of the echo service (port 50051, gRPC, STATIC, pods labelled app=echo). */
export const ECHO_SERVICE_ENTRY_YAML = `apiVersion: networking.mesh.io/v1
kind: ServiceEntry
metadata: { name: echo, namespace: qs }
spec:
  hosts: [${ECHO_HOST}]
  location: MESH_INTERNAL
  ports: [{ number: 50051, name: grpc, protocol: GRPC }]
  resolution: STATIC
  workloadSelector: { labels: { app: echo } }`;
