// A data-plane proxy's statistics and authorization view.
export { dataplaneStats, dataplaneStatsPath, DATAPLANE_STATS_OUTPUTS, DATAPLANE_STATS_TYPES, AGENT_STATUS_PORT } from './dataplane-stats.js';
export { authzPolicies, authzTable, type AuthzPolicyRow } from './authz-check.js';
