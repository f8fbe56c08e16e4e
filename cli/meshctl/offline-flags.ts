/** The flags `meshctl x simulate` and `meshctl x translate` share (kept apart from offline-sidecar.ts, which loads meshd's model and generators). */
import { flag, type Flag } from '../framework/index.js';

/** The IP of a proxy given by labels only (no WorkloadEntry names it): TEST-NET-1, never a real workload. */
export const DEFAULT_PROXY_IP = '192.0.2.1';

/** The flags both commands share. */
export function offlineFlags(): Flag[] {
  return [
    flag.stringSlice('filename', [], 'Files or directories of mesh.io resources (YAML or JSON; repeatable); - is not supported', { short: 'f' }),
    flag.bool('recursive', false, 'Process directories given with -f recursively', { short: 'R' }),
    flag.string('meshConfigFile', '', 'A MeshConfig file (e.g. outboundTrafficPolicy); default: the built-in mesh config'),
    flag.string(
      'proxy',
      '',
      'The proxy (sidecar or gateway): <namespace>/<WorkloadEntry or Pod name>, <name>.<namespace>, <namespace>/<label>=<value>[,...] or <namespace> (required)',
      { short: 'p' },
    ),
    flag.string('proxy-ip', '', `The proxy's IP (default: the WorkloadEntry's or Pod's address, else ${DEFAULT_PROXY_IP})`),
    flag.string('domain', 'cluster.local', 'The DNS domain suffix of the mesh'),
    flag.string('proxy-type', '', 'sidecar or router (a gateway); default: router when a Gateway in the files selects the proxy\'s labels, else sidecar'),
  ];
}
