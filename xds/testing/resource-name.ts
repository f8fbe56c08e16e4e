/** The name of an encoded xDS resource (Cluster/Listener/RouteConfiguration `name`, CLA `cluster_name`). */
import { lookupType } from '../protos/index.js';

export function resourceName(typeUrl: string, body: Uint8Array): string {
  const m = lookupType(typeUrl).decode(body) as unknown as { name?: string; clusterName?: string };
  return m.name || m.clusterName || '';
}
