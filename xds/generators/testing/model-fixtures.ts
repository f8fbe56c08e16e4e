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
