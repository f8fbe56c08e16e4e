import assert from 'node:assert/strict';
import { messageText } from '../diagnostic.js';
import { runAnalysis } from '../run-analysis.js';
import { analyzerTable, readTestResources } from '../testing/analyzer-table.js';
import { routeCacheAnalyzer } from './envoy-filter-route-cache.js';
import { conflictingServiceEntryProtocolAnalyzer } from './service-entry-protocols.js';

describe('serviceentry.ConflictingServiceEntryProtocolAnalyzer', () => {
  analyzerTable(
    [conflictingServiceEntryProtocolAnalyzer],
    [
      {
        name: 'given entries for one host and port with other protocols visible in one namespace should report each once, not private entries of other namespaces or protocols differing in case',
        files: ['service-entry-protocols.yaml'],
        expected: [
          'IST0177 ServiceEntry default/api-http',
          'IST0177 ServiceEntry default/api-tls',
          'IST0177 ServiceEntry team-a/private-grpc',
          'IST0177 ServiceEntry team-b/private-http',
          'IST0177 ServiceEntry team-c/public-tcp',
        ],
      },
    ],
  );

  it('given two entries with HTTP and TLS on one host and port should word the finding as istio.io shows it', () => {
    const { diagnostics } = runAnalysis(readTestResources(['service-entry-protocols.yaml']), [conflictingServiceEntryProtocolAnalyzer]);
    const apiHttp = diagnostics.find((d) => d.resource?.name === 'api-http');
    assert.equal(
      apiHttp && messageText(apiHttp),
      'Multiple ServiceEntries (default/api-http, default/api-tls) define the same host "api.example.com" and port 443 with conflicting protocols (HTTP, TLS).',
    );
  });
});

describe('envoyfilter.RouteCacheAnalyzer', () => {
  analyzerTable(
    [routeCacheAnalyzer],
    [
      {
        name: 'given a policy targeting an HTTPRoute should report EnvoyFilters adding HTTP filters outside sidecars, not sidecar-only or non-filter patches',
        files: ['envoy-filter-route-cache.yaml', 'authz-httproute.yaml'],
        expected: ['IST0178 EnvoyFilter mesh-system/gateway-lua', 'IST0178 EnvoyFilter default/any-context'],
      },
      { name: 'given policies targeting only Gateways should report nothing', files: ['envoy-filter-route-cache.yaml'], expected: [] },
    ],
  );
});
