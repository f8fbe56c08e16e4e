// The public surface of ca/: meshd's certificate authority (signing, root rotation, key stores), the
// mesh.v1.auth.MeshCertificateService server with its authenticators, and the client pilot-agent uses.
export { caSettingsFromEnv, caServicesToRegister, CaOptionsError, type CaServerOptions, type CaSettings, type OidcSettings } from './ca-options.js';
export {
  createMeshCa, selfSignedSecretName, type CaOptions, type CreateMeshCaDeps, type CreatedMeshCa, type SelfSignedCaOptions,
} from './authority/create-mesh-ca.js';
export { DirectoryCaKeyStore, MemoryCaKeyStore, type CaKeyStore } from './authority/ca-key-store.js';
export { CA_FILES, CaMaterialError, loadSigningAuthority, type SigningAuthority, type StoredCaMaterial } from './authority/ca-material.js';
export { SignerPool, defaultSignerThreads, sharedSignerPool } from './authority/signer-pool.js';
export type { LeafIssuer, LeafRequest } from './authority/leaf-profile.js';
export { MeshCa, type CaMode, type WorkloadTtlOptions } from './authority/mesh-ca.js';
export { RootRotator, inGracePeriod, type RootRotatorOptions, type RotationOutcome } from './authority/root-rotator.js';
export { createSelfSignedRoot, type SelfSignedRoot } from './authority/self-signed-root.js';
export {
  AuthenticationError, parseSpiffeIdentity, spiffeIdentity, type Authenticator, type CallCredentials, type Caller, type KubernetesCaller,
} from './server/authenticator.js';
export { CA_COUNTERS, CA_GAUGES, type CaCounterName, type CaGaugeName, type CaMetrics } from './server/ca-metrics.js';
export { CaRefusal, type RefusalCode } from './server/ca-refusal.js';
export { StaticCertificateProvider, createCaServerCredentials, type CaServerTlsMaterial } from './server/ca-server-credentials.js';
export { CERTIFICATE_SERVICE_NAME, type MeshCertificateRequest, type MeshCertificateResponse } from './server/certificate-proto.js';
export {
  CertificateService, DEFAULT_MAX_CSR_BYTES, IMPERSONATED_IDENTITY, type CertificateServiceDeps, type CertificateServiceOptions,
} from './server/certificate-service.js';
export { ServingCertificateManager, type ServingCertificateOptions } from './server/serving-certificate.js';
export { ClientCertificateAuthenticator } from './server/client-certificate-authenticator.js';
export { KubeTokenReviewer } from './server/kube-token-reviewer.js';
export { JwksFetchError, JwksResolver, type JwksMetrics, type JwksResolverOptions } from './server/oidc/jwks-resolver.js';
export { OidcTokenAuthenticator, type OidcTokenAuthenticatorOptions } from './server/oidc/oidc-token-authenticator.js';
export { parseTrustedNodeAccounts, type NodeLookup, type ServiceAccountRef } from './server/node-authorizer.js';
export {
  JWT_POLICIES, TokenAuthenticator, bearerToken, type JwtPolicy, type TokenAuthenticatorOptions, type TokenReviewResult, type TokenReviewer,
} from './server/token-authenticator.js';
export {
  CertificateClient, CertificateRequestError, type CertificateClientOptions, type CertificateRequest, type IssuedCertificate,
} from './client/certificate-client.js';
export { generateWorkloadKey, workloadKeyOptionsFromEnv, type WorkloadKey, type WorkloadKeyOptions } from './client/workload-key.js';
export { createCsrPem, CsrError, decodeCsrPem, verifyCsrProof, type CsrProof, type DecodedCsr } from './pki/csr.js';
export { ALLOWED_EC_CURVES, checkKeyStrength, KeyStrengthError, MIN_RSA_KEY_BITS, type SubjectKey } from './pki/key-strength.js';
