/**
 * The settings of `mesh-iptables` / `mesh-clean-iptables` (Istio's istio-iptables config), from the
 * flags and the env-only settings, checked once: ports are 1-65535, CIDRs parse, the interception mode
 * is REDIRECT or TPROXY. Errors name the flag or variable.
 */
import { isIP } from 'node:net';

/** Everything the rule builder reads. */
export interface IptablesConfig {
  readonly proxyPort: string;
  readonly inboundCapturePort: string;
  readonly inboundTunnelPort: string;
  readonly proxyUids: readonly string[];
  readonly proxyGids: readonly string[];
  readonly interceptionMode: 'REDIRECT' | 'TPROXY';
  readonly tproxyMark: string;
  readonly tproxyRouteTable: string;
  /** `*` or ports. */
  readonly inboundPorts: readonly string[];
  readonly inboundPortsExclude: readonly string[];
  readonly outboundPorts: readonly string[];
  readonly outboundPortsExclude: readonly string[];
  /** `['*']` or CIDRs. */
  readonly outboundCidrs: readonly string[];
  readonly outboundCidrsExclude: readonly string[];
  readonly excludeInterfaces: readonly string[];
  readonly virtualInterfaces: readonly string[];
  readonly redirectDns: boolean;
  readonly captureAllDns: boolean;
  readonly dnsServersV4: readonly string[];
  readonly dnsServersV6: readonly string[];
  readonly dropInvalid: boolean;
  readonly dualStack: boolean;
  readonly traceLogging: boolean;
  /** MESH_OUTBOUND_IPV4_LOOPBACK_CIDR (default 127.0.0.1/32). */
  readonly loopbackCidrV4: string;
  /** MESH_OUTBOUND_OWNER_GROUPS / _EXCLUDE: capture only these groups, or all but these. */
  readonly ownerGroups: { readonly except: boolean; readonly values: readonly string[] };
}

/** A setting that cannot be used; the message names it. */
export class IptablesConfigError extends Error {
  override readonly name = 'IptablesConfigError';
}

/** Splits a comma-separated list, dropping blanks. */
export function splitList(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter(Boolean);
}

function port(value: string, where: string): string {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 65535) throw new IptablesConfigError(`${where}: "${value}" is not a port (1-65535)`);
  return String(Number(value));
}

function ports(text: string, where: string, wildcard: boolean): string[] {
  const list = splitList(text);
  if (wildcard && list.length === 1 && list[0] === '*') return ['*'];
  return list.map((p) => port(p, where));
}

function cidr(value: string, where: string): string {
  const [addr, len, extra] = value.split('/');
  const family = isIP(addr ?? '');
  const max = family === 6 ? 128 : 32;
  if (family === 0 || extra !== undefined || (len !== undefined && (!/^\d+$/.test(len) || Number(len) > max))) throw new IptablesConfigError(`${where}: "${value}" is not a CIDR`);
  return len === undefined ? `${addr}/${max}` : value;
}

function cidrs(text: string, where: string, wildcard: boolean): string[] {
  const list = splitList(text);
  if (wildcard && list.length === 1 && list[0] === '*') return ['*'];
  return list.map((c) => cidr(c, where));
}

/** The raw settings, as flags and variables give them. */
export interface IptablesSettings {
  readonly envoyPort: string;
  readonly inboundCapturePort: string;
  readonly inboundTunnelPort: string;
  readonly proxyUid: string;
  readonly proxyGid: string;
  readonly interceptionMode: string;
  readonly tproxyMark: string;
  readonly tproxyRouteTable: string;
  readonly inboundPorts: string;
  readonly localExcludePorts: string;
  readonly outboundPorts: string;
  readonly outboundPortsExclude: string;
  readonly serviceCidr: string;
  readonly serviceExcludeCidr: string;
  readonly excludeInterfaces: string;
  readonly virtInterfaces: string;
  readonly redirectDns: boolean;
  readonly captureAllDns: boolean;
  readonly dropInvalid: boolean;
  readonly dualStack: boolean;
  readonly traceLogging: boolean;
  readonly loopbackCidrV4: string;
  readonly ownerGroupsInclude: string;
  readonly ownerGroupsExclude: string;
  /** The text of /etc/resolv.conf (its nameservers are the DNS servers captured). */
  readonly resolvConf: string;
}

/** Nameservers of a resolv.conf, split by family. */
export function resolvConfServers(text: string): { v4: string[]; v6: string[] } {
  const v4: string[] = [];
  const v6: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*nameserver\s+(\S+)/.exec(line);
    if (!m) continue;
    const ip = m[1]!.replace(/%.*$/, '');
    if (isIP(ip) === 4) v4.push(ip);
    else if (isIP(ip) === 6) v6.push(ip);
  }
  return { v4, v6 };
}

/** Checks the raw settings; `flagOf` maps a setting to the flag or variable named in errors. */
export function iptablesConfigFrom(s: IptablesSettings): IptablesConfig {
  const mode = s.interceptionMode || 'REDIRECT';
  if (mode !== 'REDIRECT' && mode !== 'TPROXY') throw new IptablesConfigError(`--mesh-inbound-interception-mode: "${mode}" is not REDIRECT or TPROXY`);
  const uids = splitList(s.proxyUid || '1337');
  const gids = s.proxyGid ? splitList(s.proxyGid) : uids;
  for (const id of [...uids, ...gids]) if (!/^\d+$/.test(id)) throw new IptablesConfigError(`--proxy-uid/--proxy-gid: "${id}" is not a numeric id`);
  if (!/^(0x[0-9a-fA-F]+|\d+)$/.test(s.tproxyMark)) throw new IptablesConfigError(`--mesh-inbound-tproxy-mark: "${s.tproxyMark}" is not a number`);
  if (!/^\d+$/.test(s.tproxyRouteTable)) throw new IptablesConfigError(`--mesh-inbound-tproxy-route-table: "${s.tproxyRouteTable}" is not a number`);
  const exclude = cidrs(s.serviceExcludeCidr, '--mesh-service-exclude-cidr', false);
  const dns = resolvConfServers(s.resolvConf);
  const excludeGroups = splitList(s.ownerGroupsExclude);
  const includeGroups = splitList(s.ownerGroupsInclude || '*');
  return {
    proxyPort: port(s.envoyPort, '--envoy-port'),
    inboundCapturePort: port(s.inboundCapturePort, '--inbound-capture-port'),
    inboundTunnelPort: port(s.inboundTunnelPort, '--inbound-tunnel-port'),
    proxyUids: uids,
    proxyGids: gids,
    interceptionMode: mode,
    tproxyMark: s.tproxyMark,
    tproxyRouteTable: s.tproxyRouteTable,
    inboundPorts: ports(s.inboundPorts, '--mesh-inbound-ports', true),
    inboundPortsExclude: ports(s.localExcludePorts, '--mesh-local-exclude-ports', false),
    outboundPorts: ports(s.outboundPorts, '--mesh-outbound-ports', false),
    outboundPortsExclude: ports(s.outboundPortsExclude, '--mesh-local-outbound-ports-exclude', false),
    outboundCidrs: cidrs(s.serviceCidr, '--mesh-service-cidr', true),
    outboundCidrsExclude: exclude,
    excludeInterfaces: splitList(s.excludeInterfaces),
    virtualInterfaces: splitList(s.virtInterfaces),
    redirectDns: s.redirectDns,
    captureAllDns: s.captureAllDns,
    dnsServersV4: dns.v4,
    dnsServersV6: dns.v6,
    dropInvalid: s.dropInvalid,
    dualStack: s.dualStack,
    traceLogging: s.traceLogging,
    loopbackCidrV4: cidr(s.loopbackCidrV4 || '127.0.0.1/32', 'MESH_OUTBOUND_IPV4_LOOPBACK_CIDR'),
    ownerGroups: excludeGroups.length > 0 ? { except: true, values: excludeGroups } : includeGroups.length === 1 && includeGroups[0] === '*' ? { except: true, values: [] } : { except: false, values: includeGroups },
  };
}
