import { arr, enumOf, obj, str, uint32 } from '../../schema/builders.js';
import { connectionPoolSettings } from '../shared/connection-pool.js';
import { destination } from '../shared/destination.js';
import { serverTlsSettings } from '../shared/server-tls.js';
import { workloadLabelsSelector } from '../shared/workload-selector.js';

/** Istio's SidecarPort. */
export const sidecarPort = obj({ number: uint32(), protocol: str(), name: str(), targetPort: uint32() });

const captureMode = enumOf(['DEFAULT', 'IPTABLES', 'NONE']);

/** Istio's IstioIngressListener (mesh ingress listener of a Sidecar). */
export const sidecarIngressListener = obj(
  {
    port: sidecarPort,
    bind: str(),
    captureMode,
    defaultEndpoint: str(),
    tls: serverTlsSettings,
    connectionPool: connectionPoolSettings,
  },
  ['port'],
);

/** Istio's IstioEgressListener: the hosts (`namespace/dnsName`) a sidecar can reach. */
export const sidecarEgressListener = obj(
  { port: sidecarPort, bind: str(), captureMode, hosts: arr(str()) },
  ['hosts'],
);

/** The spec of a Sidecar (networking.mesh.io): scopes a sidecar's inbound and outbound config. */
export const sidecarSpec = obj({
  workloadSelector: workloadLabelsSelector,
  ingress: arr(sidecarIngressListener),
  egress: arr(sidecarEgressListener),
  inboundConnectionPool: connectionPoolSettings,
  outboundTrafficPolicy: obj({ mode: enumOf(['REGISTRY_ONLY', 'ALLOW_ANY']), egressProxy: destination }),
});
