/**
 * Protos of meshd's own xDS types (beside Envoy's), parsed into the shared Root: the name table (NDS) that
 * pilot-agent's DNS proxy answers mesh host names from (Istio's `istio.networking.nds.v1.NameTable`, renamed).
 */
export const MESH_PROTOS = `
syntax = "proto3";
package mesh.networking.nds.v1;

// Host names of the services a proxy sees, with their addresses.
message NameTable {
  message NameInfo {
    // The service's virtual IPs, or its endpoints' IPs for a headless service.
    repeated string ips = 1;
    // Where the service comes from: Kubernetes (the orchestrator) or External (a ServiceEntry).
    string registry = 2;
    // For an orchestrator service: its name and namespace, so the agent answers a, a.ns and a.ns.svc too.
    string shortname = 3;
    string namespace = 4;
    repeated string alt_hosts = 5;
  }
  map<string, NameInfo> table = 1;
}
`;

/**
 * The config of the `mesh.alpn` HTTP filter of outbound sidecar HCMs (Istio's
 * `istio.envoy.config.filter.http.alpn.v2alpha1.FilterConfig`, renamed): the ALPN the upstream TLS offers
 * per downstream protocol, so the server sidecar can tell mTLS HTTP from mTLS TCP.
 */
export const MESH_ALPN_FILTER_PROTO = `
syntax = "proto3";
package mesh.envoy.config.filter.http.alpn.v2alpha1;

message FilterConfig {
  enum ProtocolType {
    HTTP10 = 0;
    HTTP11 = 1;
    HTTP2 = 2;
  }
  message AlpnOverride {
    ProtocolType upstream_protocol = 1;
    repeated string alpn_override = 2;
  }
  repeated AlpnOverride alpn_override = 1;
}
`;
