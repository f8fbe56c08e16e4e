import { analyzerTable } from '../testing/analyzer-table.js';
import { externalControlPlaneAnalyzer } from './external-control-plane.js';
import { meshNetworksAnalyzer } from './mesh-networks.js';

describe('externalcontrolplane.ExternalControlPlaneAnalyzer', () => {
  analyzerTable(
    [externalControlPlaneAnalyzer],
    [{ name: 'given a webhook URL on an IP address and a blank one should report each, not a host name', files: ['external-and-networks.yaml'], expected: ['IST0164 ValidatingWebhookConfiguration mesh-validator-external-mesh-system', 'IST0163 ValidatingWebhookConfiguration mesh-validator-external-mesh-system'] }],
  );
});

describe('meshnetworks.MeshNetworksAnalyzer', () => {
  analyzerTable(
    [meshNetworksAnalyzer],
    [{ name: 'given a registry that is neither the orchestrator nor a multicluster secret cluster should report it', files: ['external-and-networks.yaml'], expected: ['IST0126 ConfigMap mesh-system/mesh-networks'] }],
  );
});
