import { analyzerTable } from '../testing/analyzer-table.js';
import { conflictingMeshGatewayHostsAnalyzer } from './virtual-service-conflicting-mesh-gateway-hosts.js';
import { destinationHostAnalyzer } from './virtual-service-destination-host.js';
import { virtualServiceDestinationRuleAnalyzer } from './virtual-service-destination-rule.js';
import { virtualServiceGatewayAnalyzer } from './virtual-service-gateway.js';
import { jwtClaimRouteAnalyzer } from './virtual-service-jwt-claim-route.js';
import { regexAnalyzer } from './virtual-service-regex.js';

describe('virtualservice.DestinationHostAnalyzer', () => {
  analyzerTable(
    [destinationHostAnalyzer],
    [
      {
        name: 'given destinations to missing or unexported hosts, unnamed ports of multi-port services and unknown ports should report each',
        files: ['services.yaml', 'vs-destination-hosts.yaml'],
        expected: [
          'IST0101 VirtualService default/missing-host',
          'IST0112 VirtualService default/needs-port',
          'IST0101 VirtualService default/wrong-port',
          'IST0101 VirtualService default/mirror-missing',
          'IST0101 VirtualService default/not-exported-here',
        ],
      },
      { name: 'given no services at all should report every destination host', files: ['vs-subsets.yaml'], expected: ['IST0101 VirtualService default/subset-ok', 'IST0101 VirtualService default/subset-missing', 'IST0101 VirtualService default/subset-missing'] },
    ],
  );
});

describe('virtualservice.DestinationRuleAnalyzer', () => {
  analyzerTable(
    [virtualServiceDestinationRuleAnalyzer],
    [{ name: 'given subsets no DestinationRule defines should report each', files: ['services.yaml', 'vs-subsets.yaml'], expected: ['IST0101 VirtualService default/subset-missing', 'IST0101 VirtualService default/subset-missing'] }],
  );
});

describe('virtualservice.GatewayAnalyzer', () => {
  analyzerTable(
    [virtualServiceGatewayAnalyzer],
    [
      { name: 'given a missing gateway and a gateway not serving the host should report both', files: ['vs-gateways.yaml'], expected: ['IST0101 VirtualService default/gw-missing', 'IST0132 VirtualService default/gw-host-not-served'] },
      {
        name: 'given Gateway API Gateways should accept them by listener hostname (none: every host), and report a host no listener serves and an internal generated Gateway',
        files: ['vs-k8s-gateways.yaml'],
        expected: ['IST0132 VirtualService default/k8s-gw-wrong-host', 'IST0165 VirtualService default/internal-gw'],
      },
    ],
  );
});

describe('virtualservice.ConflictingMeshGatewayHostsAnalyzer', () => {
  analyzerTable(
    [conflictingMeshGatewayHostsAnalyzer],
    [{ name: 'given two mesh VirtualServices for one host should report both, not gateway-only or private ones', files: ['vs-conflicting-hosts.yaml'], expected: ['IST0109 VirtualService default/reviews-a', 'IST0109 VirtualService default/reviews-b'] }],
  );
});

describe('virtualservice.RegexAnalyzer', () => {
  analyzerTable([regexAnalyzer], [{ name: 'given a regex that does not compile should report it once', files: ['vs-regex.yaml'], expected: ['IST0122 VirtualService default/bad-regex'] }]);
});

describe('virtualservice.JWTClaimRouteAnalyzer', () => {
  analyzerTable(
    [jwtClaimRouteAnalyzer],
    [
      { name: 'given claim routing at a gateway without RequestAuthentication should report it', files: ['vs-jwt.yaml'], expected: ['IST0149 VirtualService default/claims'] },
      { name: 'given a RequestAuthentication selecting the gateway pods should report nothing', files: ['vs-jwt.yaml', 'request-authn-ingress.yaml'], expected: [] },
    ],
  );
});
