import type { SidecarListenerOptions } from './listener-options.js';

/**
 * The process-wide options the Envoy builders read (sidecar and, for clusters, router), read once at start
 * by generatorOptionsFromEnv; an absent one keeps istiod's default.
 */
export interface SidecarBuilderOptions {
  /** PILOT_ENABLE_EDS_FOR_HEADLESS_SERVICES (default false; see OutboundClusterOptions). */
  readonly edsForHeadless?: boolean;
  /** ENABLE_TLS_ON_SIDECAR_INGRESS (default false; see InboundListenerOptions). */
  readonly tlsOnSidecarIngress?: boolean;
  /**
   * The listener options (PILOT_SIDECAR_USE_REMOTE_ADDRESS, PILOT_HTTP10, ENABLE_HCM_INTERNAL_NETWORKS,
   * PILOT_ENABLE_ALPN_FILTER, MESH_ENABLE_IPV4_OUTBOUND_LISTENER_FOR_IPV6_CLUSTERS,
   * PILOT_ENABLE_HEADLESS_SERVICE_POD_LISTENERS, MESH_DUAL_STACK; see listener-options.ts). The cluster
   * builders read MESH_DUAL_STACK and MESH_ENABLE_IPV4_OUTBOUND_LISTENER_FOR_IPV6_CLUSTERS from it too.
   */
  readonly listener?: SidecarListenerOptions;
  /** ENABLE_AUTO_SNI (default true; see OutboundClusterOptions). */
  readonly autoSni?: boolean;
  /** VERIFY_CERTIFICATE_AT_CLIENT (default true; see OutboundClusterOptions). */
  readonly verifyCertAtClient?: boolean;
  /** PILOT_ENABLE_REDIS_FILTER (default false; see OutboundClusterOptions and NetworkFilterOptions). */
  readonly redisFilter?: boolean;
  /** PILOT_ENABLE_MONGO_FILTER (default true; see NetworkFilterOptions). */
  readonly mongoFilter?: boolean;
}
