import { arr, int, map, obj, str, uint32 } from '../../schema/builders.js';
import { destination } from '../shared/destination.js';
import { httpRoute } from './http-route.js';

/** Istio's RouteDestination (TLS and TCP routes). */
export const routeDestination = obj({ destination, weight: int({ format: 'int32' }) }, ['destination']);

/** Istio's TLSMatchAttributes. */
export const tlsMatchAttributes = obj(
  {
    sniHosts: arr(str()),
    destinationSubnets: arr(str()),
    port: uint32(),
    sourceLabels: map(str()),
    gateways: arr(str()),
    sourceNamespace: str(),
  },
  ['sniHosts'],
);

/** Istio's L4MatchAttributes. */
export const l4MatchAttributes = obj({
  destinationSubnets: arr(str()),
  port: uint32(),
  sourceSubnet: str(),
  sourceLabels: map(str()),
  gateways: arr(str()),
  sourceNamespace: str(),
});

/** Istio's TLSRoute. */
export const tlsRoute = obj({ match: arr(tlsMatchAttributes), route: arr(routeDestination) }, ['match']);

/** Istio's TCPRoute. */
export const tcpRoute = obj({ match: arr(l4MatchAttributes), route: arr(routeDestination) });

/** The spec of a VirtualService (networking.mesh.io): traffic routing rules for a set of hosts. */
export const virtualServiceSpec = obj(
  {
    hosts: arr(str(), { description: 'The destination hosts to which traffic is being sent.' }),
    gateways: arr(str(), { description: 'The gateways and sidecars that should apply these routes.' }),
    http: arr(httpRoute),
    tls: arr(tlsRoute),
    tcp: arr(tcpRoute),
    exportTo: arr(str()),
  },
  [],
  { description: 'Configuration affecting label/content routing, sni routing, etc.' },
);
