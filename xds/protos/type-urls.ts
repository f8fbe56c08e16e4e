/**
 * Full type URLs of the xDS resource types, in one place for meshd's transport and generators and for
 * pilot-agent (its xDS proxy and SDS server).
 */

/** Full type URLs of the xDS types meshd serves. */
export const TYPE_URL = {
  cluster: 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
  endpoint: 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment',
  listener: 'type.googleapis.com/envoy.config.listener.v3.Listener',
  route: 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
  secret: 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret',
  extensionConfig: 'type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig',
  /** meshd's name table for pilot-agent's DNS proxy (NDS). */
  nameTable: 'type.googleapis.com/mesh.networking.nds.v1.NameTable',
} as const;
export type TypeUrl = (typeof TYPE_URL)[keyof typeof TYPE_URL];
