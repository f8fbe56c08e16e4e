// The orchestrator (Kubernetes) client and informers as Observables.
export { Backoff, type BackoffOptions } from './backoff.js';
export { TokenBucket } from './token-bucket.js';
export {
  ORCH_CONTENT_TYPES,
  DEFAULT_ORCH_CLIENT_OPTIONS,
  OrchConfigError,
  loadOrchKubeConfig,
  validateOrchClientOptions,
  type OrchContentType,
  type OrchConfigSource,
  type InClusterSource,
  type OrchClientOptions,
} from './orch-client-options.js';
export {
  OrchClient,
  createOrchClient,
  DEFAULT_REQUEST_TIMEOUT_MS,
  OrchApiError,
  type OrchQuery,
  type OrchRequestOptions,
  type RawWatchEvent,
  type OrchClientInternals,
  type OrchTransport,
} from './orch-client.js';
export { OrchKubeConfig, KubeconfigError, type OrchCredentials, type KubeCluster, type KubeUser, type KubeContext } from './kubeconfig.js';
export { ORCH_RESOURCES, resourcePath, objectPath, objectKey, type OrchResource } from './orch-resource.js';
export {
  Informer,
  INFORMER_EVENT_TYPES,
  type InformerEvent,
  type InformerEventType,
  type InformerError,
  type InformerOptions,
} from './informer.js';
export { InformerFactory, type InformerFactoryOptions, type InformerSelectors } from './informer-factory.js';
export { OrchSecretCaStore, CA_SECRET_KEYS, CA_SECRET_TYPE, CaSecretError, type CaSecretMaterial } from './ca-secret-store.js';
