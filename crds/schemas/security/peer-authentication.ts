import { enumOf, map, obj } from '../../schema/builders.js';
import { CEL } from '../shared/istio-cel.js';
import { workloadSelector } from '../shared/workload-selector.js';

/** PeerAuthentication mutual-TLS modes. */
export const MTLS_MODES = ['UNSET', 'DISABLE', 'PERMISSIVE', 'STRICT'] as const;

/** Istio's PeerAuthentication.MutualTLS. */
export const mutualTls = obj({ mode: enumOf(MTLS_MODES) });

/** The spec of a PeerAuthentication (security.mesh.io): mutual TLS mode for workloads. */
export const peerAuthenticationSpec = obj(
  {
    selector: workloadSelector,
    mtls: mutualTls,
    portLevelMtls: map(mutualTls, {
      minProperties: 1,
      description: 'Port-specific mutual TLS settings, keyed by port number.',
      'x-kubernetes-validations': [CEL.portLevelMtlsPorts],
    }),
  },
  [],
  { 'x-kubernetes-validations': [CEL.portLevelMtlsSelector] },
);
