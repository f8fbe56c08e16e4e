import { analyzerTable } from '../testing/analyzer-table.js';
import { annotationsAnalyzer } from './annotations.js';
import { authorizationPoliciesAnalyzer } from './authorization-policies.js';
import { applicationUidAnalyzer, multiServiceAnalyzer } from './deployment-analyzers.js';
import { caCertificateAnalyzer } from './destination-rule-ca-certificate.js';
import { subsetSelectPodAnalyzer } from './destination-rule-subsets.js';
import { envoyPatchAnalyzer } from './envoy-patch.js';
import { imageAutoAnalyzer, injectionAnalyzer, injectionImageAnalyzer } from './injection-analyzers.js';
import { serviceEntryAddressesAnalyzer } from './service-entry-addresses.js';
import { portNameAnalyzer } from './service-port-name.js';
import { webhookAnalyzer } from './webhook.js';

describe('injection.Analyzer', () => {
  analyzerTable(
    [injectionAnalyzer],
    [
      {
        name: 'given an unlabelled namespace, two injection labels and a pod without the proxy should report each',
        files: ['injection.yaml'],
        expected: ['IST0102 Namespace plain', 'IST0123 Namespace both-labels', 'IST0103 Pod injected/no-proxy'],
      },
    ],
  );
});

describe('injection.ImageAnalyzer', () => {
  analyzerTable([injectionImageAnalyzer], [{ name: 'given a pod with an older proxy image should report its namespace', files: ['injection.yaml'], expected: ['IST0158 Namespace injected'] }]);
});

describe('injection.ImageAutoAnalyzer', () => {
  analyzerTable(
    [imageAutoAnalyzer],
    [{ name: 'given image auto outside the injection webhook selectors should report the pod (error) and the deployment (warning)', files: ['injection.yaml'], expected: ['IST0147 Pod plain/auto-pod', 'IST0146 Deployment plain/auto-deploy'] }],
  );
});

describe('webhook.Analyzer', () => {
  analyzerTable(
    [webhookAnalyzer],
    [
      { name: 'given an injection webhook pointing at a missing service should report it', files: ['injection.yaml'], expected: ['IST0139 MutatingWebhookConfiguration mesh-sidecar-injector'] },
      { name: 'given the service it points at should report nothing', files: ['injection.yaml', 'meshd-service.yaml'], expected: [] },
    ],
  );
});

describe('service.PortNameAnalyzer', () => {
  analyzerTable(
    [portNameAnalyzer],
    [{ name: 'given unnamed and badly named ports should report each, not the control plane', files: ['service-ports.yaml'], expected: ['IST0118 Service default/badly-named', 'IST0118 Service default/badly-named', 'IST0150 Service default/external'] }],
  );
});

describe('deployment.MultiServiceAnalyzer', () => {
  analyzerTable(
    [multiServiceAnalyzer],
    [{ name: 'given services sharing a port with different protocols and a targetPort behind two ports should report both', files: ['deployments.yaml'], expected: ['IST0116 Deployment default/multi', 'IST0137 Deployment default/multi'] }],
  );
});

describe('applicationUID.Analyzer', () => {
  analyzerTable([applicationUidAnalyzer], [{ name: 'given application UID 1337 should report it, not on the proxy', files: ['deployments.yaml'], expected: ['IST0144 Deployment default/multi', 'IST0144 Pod default/uid-pod'] }]);
});

describe('annotations.K8sAnalyzer', () => {
  analyzerTable(
    [annotationsAnalyzer],
    [
      {
        name: 'given unknown, misplaced, deprecated and invalid annotations should report each',
        files: ['annotations.yaml'],
        expected: ['IST0125 Pod default/annotated', 'IST0135 Pod default/annotated', 'IST0108 Pod default/annotated', 'IST0107 Pod default/annotated', 'IST0107 Deployment default/misplaced', 'IST0125 Deployment default/misplaced'],
      },
    ],
  );
});

describe('envoyfilter.EnvoyPatchAnalyzer', () => {
  analyzerTable(
    [envoyPatchAnalyzer],
    [
      {
        name: 'given add/remove on routes, replace on a cluster and relative operations without priority should report each',
        files: ['envoy-filters.yaml'],
        expected: ['IST0153 EnvoyFilter default/add-route', 'IST0154 EnvoyFilter default/remove-route', 'IST0152 EnvoyFilter default/replace-cluster', 'IST0151 EnvoyFilter default/relative-versioned', 'IST0155 EnvoyFilter default/relative-again'],
      },
    ],
  );
});

describe('destinationrule.CaCertificateAnalyzer', () => {
  analyzerTable(
    [caCertificateAnalyzer],
    [{ name: 'given SIMPLE and port-level MUTUAL without caCertificates should report both levels', files: ['destination-rules-tls.yaml'], expected: ['IST0128 DestinationRule default/simple-no-ca', 'IST0129 DestinationRule default/simple-no-ca'] }],
  );
});

describe('serviceentry.Analyzer', () => {
  analyzerTable(
    [serviceEntryAddressesAnalyzer],
    [
      { name: 'given TCP and protocol-less ports without addresses should report each port', files: ['service-entries.yaml'], expected: ['IST0134 ServiceEntry default/tcp-no-address', 'IST0134 ServiceEntry default/tcp-no-address'] },
      {
        name: 'given DNS capture with auto allocation in the mesh config should report nothing',
        files: ['service-entries.yaml'],
        expected: [],
        meshConfig: { defaultConfig: { proxyMetadata: { MESH_META_DNS_CAPTURE: 'true', MESH_META_DNS_AUTO_ALLOCATE: 'true' } } },
      },
    ],
  );
});

describe('auth.AuthorizationPoliciesAnalyzer', () => {
  analyzerTable(
    [authorizationPoliciesAnalyzer],
    [{ name: 'given a selector matching no pod and unknown namespaces should report each', files: ['authz.yaml'], expected: ['IST0127 AuthorizationPolicy default/no-workload', 'IST0101 AuthorizationPolicy default/missing-namespaces', 'IST0101 AuthorizationPolicy default/missing-namespaces'] }],
  );
});

describe('destinationrule.SubsetSelectPodAnalyzer', () => {
  analyzerTable(
    [subsetSelectPodAnalyzer],
    [
      {
        name: 'given a subset no workload matches and a host no service has should report each, not topology or template matches',
        files: ['destination-rule-subsets.yaml'],
        expected: ['IST0173 DestinationRule default/reviews', 'IST0174 DestinationRule default/fake-host'],
      },
      {
        name: 'given a ServiceEntry whose WorkloadEntries carry one subset\'s labels should report only the subset none carries',
        files: ['destination-rule-subsets-workload-entries.yaml'],
        expected: ['IST0173 DestinationRule default/ratings'],
      },
    ],
  );
});
