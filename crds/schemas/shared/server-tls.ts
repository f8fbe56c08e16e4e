import { arr, bool, enumOf, obj, str } from '../../schema/builders.js';
import { CEL } from './istio-cel.js';

const TLS_VERSIONS = ['TLS_AUTO', 'TLSV1_0', 'TLSV1_1', 'TLSV1_2', 'TLSV1_3'] as const;

/** Istio's ServerTLSSettings (Gateway servers, Sidecar ingress listeners); `ISTIO_MUTUAL` is `MESH_MUTUAL`. */
export const serverTlsSettings = obj(
  {
    httpsRedirect: bool(),
    mode: enumOf(['PASSTHROUGH', 'SIMPLE', 'MUTUAL', 'AUTO_PASSTHROUGH', 'MESH_MUTUAL', 'OPTIONAL_MUTUAL']),
    serverCertificate: str(),
    privateKey: str(),
    caCertificates: str(),
    caCrl: str(),
    credentialName: str(),
    credentialNames: arr(str(), { minItems: 1, maxItems: 2 }),
    /** Server certificates by file (RSA and ECDSA: up to 2 are served). */
    tlsCertificates: arr(obj({ serverCertificate: str(), privateKey: str(), caCertificates: str() }), { minItems: 1, maxItems: 2 }),
    subjectAltNames: arr(str()),
    verifyCertificateSpki: arr(str()),
    verifyCertificateHash: arr(str()),
    minProtocolVersion: enumOf(TLS_VERSIONS),
    maxProtocolVersion: enumOf(TLS_VERSIONS),
    cipherSuites: arr(str()),
  },
  [],
  { 'x-kubernetes-validations': [CEL.credentialNamesOrTlsCertificates, CEL.credentialNameOrCredentialNames, CEL.credentialNameOrTlsCertificates] },
);

/** Istio's ClientTLSSettings (DestinationRule `tls`); `ISTIO_MUTUAL` is `MESH_MUTUAL`. */
export const clientTlsSettings = obj({
  mode: enumOf(['DISABLE', 'SIMPLE', 'MUTUAL', 'MESH_MUTUAL']),
  clientCertificate: str(),
  privateKey: str(),
  caCertificates: str(),
  credentialName: str(),
  subjectAltNames: arr(str()),
  sni: str(),
  insecureSkipVerify: bool({ nullable: true }),
  caCrl: str(),
});
