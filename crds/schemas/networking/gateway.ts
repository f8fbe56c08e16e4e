import { arr, map, obj, portNumber, str, uint32 } from '../../schema/builders.js';
import { serverTlsSettings } from '../shared/server-tls.js';

/** Istio's Port of a Gateway server: number, protocol and name are required. */
export const gatewayPort = obj(
  { number: portNumber(), protocol: str(), name: str(), targetPort: uint32() },
  ['number', 'protocol', 'name'],
);

/** Istio's Server: a listener of a gateway. */
export const gatewayServer = obj(
  {
    port: gatewayPort,
    bind: str(),
    hosts: arr(str()),
    tls: serverTlsSettings,
    defaultEndpoint: str(),
    name: str(),
  },
  ['port', 'hosts'],
);

/** The spec of a Gateway (networking.mesh.io): a load balancer at the edge of the mesh. */
export const gatewaySpec = obj({
  servers: arr(gatewayServer),
  selector: map(str(), { description: 'Labels of the pods or VMs on which this gateway is applied.' }),
});
