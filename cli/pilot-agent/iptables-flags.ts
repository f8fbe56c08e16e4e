/** The flags of `pilot-agent mesh-iptables` and `mesh-clean-iptables` (document 2). */
import { flag, type Flag } from '../framework/index.js';

/** Flags both iptables commands take; `tproxyMark` is the `--mesh-inbound-tproxy-mark` default. */
export function sharedIptablesFlags(tproxyMark: string): Flag[] {
  return [
    flag.bool('capture-all-dns', false, 'Instead of only capturing DNS traffic to DNS server IP, capture all DNS traffic at port 53. This setting is only effective when redirect dns is enabled.'),
    flag.bool('dry-run', false, 'Do not call any external dependencies like iptables', { short: 'n' }),
    flag.string('mesh-inbound-interception-mode', '', 'The mode used to redirect inbound connections to the proxy, either "REDIRECT" or "TPROXY"', { short: 'm' }),
    flag.string('mesh-inbound-tproxy-mark', tproxyMark, 'The TPROXY mark', { short: 't' }),
    flag.string('proxy-gid', '', 'Specify the GID of the user for which the redirection is not applied (same default value as -u param)', { short: 'g' }),
    flag.string('proxy-uid', '', 'Specify the UID of the user for which the redirection is not applied. Typically, this is the UID of the proxy container', { short: 'u' }),
    flag.bool('redirect-dns', false, 'Enable capture of dns traffic by the agent'),
  ];
}

/** The extra flags of `mesh-iptables`. */
export const MESH_IPTABLES_FLAGS: readonly Flag[] = [
  flag.bool('cni-mode', false, 'Whether to run as CNI plugin.'),
  flag.bool('drop-invalid', false, 'Enable invalid drop in the iptables rules'),
  flag.bool('dual-stack', false, 'Enable ipv4/ipv6 redirects for dual-stack.'),
  flag.string('envoy-port', '15001', 'Specify the proxy port to which redirect all TCP outbound traffic', { short: 'p' }),
  flag.string('inbound-capture-port', '15006', 'Port to which all inbound TCP traffic to the pod/VM should be redirected to', { short: 'z' }),
  flag.string('inbound-tunnel-port', '15008', 'Specify the mesh tunnel port for inbound tcp traffic', { short: 'e' }),
  flag.uint16('iptables-probe-port', 15002, 'Set listen port for failure detection'),
  flag.bool('iptables-trace-logging', false, 'Insert tracing logs for each iptables rules, using the LOG chain.'),
  flag.string('iptables-version', '', 'version of iptables command. If not set, this is automatically detected.'),
  flag.string('mesh-exclude-interfaces', '', 'Comma separated list of NIC (optional). Neither inbound nor outbound traffic will be captured', { short: 'c' }),
  flag.string('mesh-inbound-ports', '', "Comma separated list of inbound ports for which traffic is to be redirected to the proxy (optional). The wildcard character '*' can be used to configure redirection for all ports. An empty list will disable", { short: 'b' }),
  flag.string('mesh-inbound-tproxy-route-table', '133', 'The TPROXY routing table number', { short: 'r' }),
  flag.string('mesh-local-exclude-ports', '', 'Comma separated list of inbound ports to be excluded from redirection to the proxy (optional). Only applies when all inbound traffic (i.e. "*") is being redirected', { short: 'd' }),
  flag.string('mesh-local-outbound-ports-exclude', '', 'Comma separated list of outbound ports to be excluded from redirection to the proxy', { short: 'o' }),
  flag.string('mesh-outbound-ports', '', 'Comma separated list of outbound ports to be explicitly included for redirection to the proxy', { short: 'q' }),
  flag.string('mesh-service-cidr', '', "Comma separated list of IP ranges in CIDR form to redirect to the proxy (optional). The wildcard character '*' can be used to redirect all outbound traffic. An empty list will disable all outbound", { short: 'i' }),
  flag.string('mesh-service-exclude-cidr', '', "Comma separated list of IP ranges in CIDR form to be excluded from redirection. Only applies when all outbound traffic (i.e. '*') is being redirected", { short: 'x' }),
  flag.string('orch-virt-interfaces', '', 'Comma separated list of virtual interfaces whose inbound traffic (from VM) will be treated as outbound', { short: 'k' }),
  flag.string('network-namespace', '', 'The network namespace that iptables rules should be applied to.'),
  flag.duration('probe-timeout', 5_000, 'Failure detection timeout'),
  flag.bool('restore-format', false, 'Print iptables rules in iptables-restore interpretable format', { short: 'f' }),
  flag.bool('run-validation', false, 'Validate iptables'),
  flag.bool('skip-rule-apply', false, 'Skip iptables apply'),
];
