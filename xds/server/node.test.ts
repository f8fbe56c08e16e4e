import assert from 'node:assert/strict';
import { lookupType } from '../protos/index.js';
import { NodeError, parseNode } from './node.js';
import type { NodeMessage } from './wire.js';
import { nodeObject, type TestNode } from '../testing/index.js';

/** Builds the Node exactly as it arrives: encoded by a client, decoded by the transport. */
function wireNode(n: TestNode): NodeMessage {
  const T = lookupType('envoy.config.core.v3.Node');
  return T.decode(T.encode(T.fromObject(nodeObject(n))).finish()) as unknown as NodeMessage;
}

const ID = 'sidecar~10.0.0.1~reviews-v1-abc.default~default.svc.cluster.local';

describe('parseNode', () => {
  it('given a sidecar node with Istio metadata, should parse identity, labels, locality and MESH_ aliases', () => {
    const n = parseNode(
      wireNode({
        id: ID,
        metadata: { CLUSTER_ID: 'Kubernetes', LABELS: { app: 'reviews', version: 'v1' }, ISTIO_VERSION: '1.24.0', INSTANCE_IPS: '10.0.0.1,fd00::1', SERVICE_ACCOUNT: 'bookinfo-reviews' },
        locality: { region: 'eu', zone: 'eu-1a' },
      }),
    );
    assert.equal(n.type, 'sidecar');
    assert.equal(n.podName, 'reviews-v1-abc');
    assert.equal(n.namespace, 'default');
    assert.equal(n.dnsDomain, 'default.svc.cluster.local');
    assert.deepEqual(n.ipAddresses, ['10.0.0.1', 'fd00::1']);
    assert.deepEqual(n.metadata['LABELS'], { app: 'reviews', version: 'v1' });
    assert.equal(n.metadata['MESH_VERSION'], '1.24.0');
    assert.equal(n.metadata['ISTIO_VERSION'], '1.24.0');
    assert.deepEqual(n.locality, { region: 'eu', zone: 'eu-1a', subZone: '' });
    assert.equal(n.proxyless, false);
  });

  it('given GENERATOR grpc, should mark the node proxyless; NAMESPACE metadata should win over the ID', () => {
    const n = parseNode(wireNode({ id: ID, metadata: { GENERATOR: 'grpc', NAMESPACE: 'other' } }));
    assert.equal(n.proxyless, true);
    assert.equal(n.namespace, 'other');
  });

  const bad: { name: string; node: TestNode | undefined; message: RegExp }[] = [
    { name: 'no node', node: undefined, message: /has no node/ },
    { name: 'a router that is proxyless', node: { id: ID.replace('sidecar', 'router'), metadata: { GENERATOR: 'grpc' } }, message: /must be of type sidecar/ },
    { name: 'LABELS that is not a string map', node: { id: ID, metadata: { LABELS: { app: 3 } } }, message: /LABELS must be a map of strings/ },
    { name: 'a bad INSTANCE_IPS entry', node: { id: ID, metadata: { INSTANCE_IPS: '10.0.0.1,nope' } }, message: /INSTANCE_IPS: "nope" is not an IP address/ },
    { name: 'a CLUSTER_ID that is not a string', node: { id: ID, metadata: { CLUSTER_ID: 7 } }, message: /CLUSTER_ID must be a string/ },
    { name: 'an empty domain', node: { id: 'sidecar~10.0.0.1~a.b~' }, message: /DNS domain part is empty/ },
  ];
  for (const c of bad) {
    it(`given ${c.name}, should throw NodeError saying so`, () => {
      assert.throws(() => parseNode(c.node ? wireNode(c.node) : undefined), (e: unknown) => e instanceof NodeError && c.message.test(e.message));
    });
  }
});
