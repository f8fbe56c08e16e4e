/* eslint-disable @typescript-eslint/no-explicit-any -- assertions walk built Envoy objects */
import assert from 'node:assert/strict';
import { buildProxyInboundCluster, proxyInboundPorts } from './inbound-clusters.js';
import { sidecarAt, sidecarModel } from './testing/sidecar-mesh.js';

describe('sidecar inbound clusters', () => {
  it('given the proxy own service port should serve inbound|<port>|| to the original destination bound to 127.0.0.6', () => {
    const { proxy, snap } = sidecarAt(sidecarModel());
    const ports = proxyInboundPorts(snap.pushContext, proxy, snap.endpoints);
    const c: any = ports.map((p) => buildProxyInboundCluster(snap.pushContext, proxy, p)).find((x) => x['name'] === 'inbound|9080||');
    assert.ok(c, `inbound|9080|| among ${ports.map((p) => p.targetPort).join(', ')}`);
    assert.equal(c.type, 'ORIGINAL_DST');
    assert.equal(c.lbPolicy, 'CLUSTER_PROVIDED');
    assert.equal(c.upstreamBindConfig.sourceAddress.address, '127.0.0.6');
    assert.equal(c.originalDstLbConfig.upstreamPortOverride.value, 9080);
  });
});
