// The certauth_server_* metrics the certificate service records (spec/metrics.json names).

/** Counters of the certificate service and of the OIDC (TOKEN_ISSUER) key resolver. */
export const CA_COUNTERS = [
  'certauth_server_csr_count',
  'certauth_server_authentication_failure_count',
  'certauth_server_csr_parsing_err_count',
  'certauth_server_id_extraction_err_count',
  'certauth_server_csr_sign_err_count',
  'certauth_server_success_cert_issuance_count',
  'pilot_jwks_resolver_network_fetch_success_total',
  'pilot_jwks_resolver_network_fetch_fail_total',
] as const;

/** Gauges of the certificate service: Unix seconds of the root's and the chain's expiry. */
export const CA_GAUGES = ['certauth_server_root_cert_expiry_timestamp', 'certauth_server_cert_chain_expiry_timestamp'] as const;

export type CaCounterName = (typeof CA_COUNTERS)[number];
export type CaGaugeName = (typeof CA_GAUGES)[number];

/**
 * The slice of core's `Metrics` (docs/contracts.md) the service uses: typed handles by metric name.
 * core's `Metrics` satisfies it structurally; tests use `ca/testing/test-ca-metrics.ts`.
 */
export interface CaMetrics {
  counter(name: CaCounterName): { inc(value?: number): void };
  gauge(name: CaGaugeName): { set(value: number): void };
}
