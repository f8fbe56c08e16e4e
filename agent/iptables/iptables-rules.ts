/**
 * The redirection rules as data: per IP family, an ordered list of (table, chain, rule) with `-A` or
 * `-I <pos>`, in Istio's order (tools/istio-iptables capture/run.go, `ISTIO_*` chains renamed `MESH_*`),
 * plus the policy-routing commands TPROXY needs. Rendered by `toRestoreInput` for `iptables-restore`.
 */
import type { IptablesConfig } from './iptables-config.js';

/** The chains mesh creates. */
export const MESH_CHAINS = {
  inbound: 'MESH_INBOUND',
  redirect: 'MESH_REDIRECT',
  inRedirect: 'MESH_IN_REDIRECT',
  output: 'MESH_OUTPUT',
  outputDns: 'MESH_OUTPUT_DNS',
  divert: 'MESH_DIVERT',
  tproxy: 'MESH_TPROXY',
  drop: 'MESH_DROP',
} as const;

/** The tables used. */
export type Table = 'raw' | 'mangle' | 'nat' | 'filter';
/** IP families. */
export type Family = 'v4' | 'v6';

/** One rule: `-A chain args` or, with `insertAt`, `-I chain insertAt args`. */
export interface Rule {
  readonly table: Table;
  readonly chain: string;
  readonly args: readonly string[];
  readonly insertAt?: number;
}

/** The rules and routing commands of both families. */
export interface RuleSet {
  readonly v4: readonly Rule[];
  readonly v6: readonly Rule[];
  /** `ip` command lines (argv without `ip`), TPROXY only. */
  readonly routes: { readonly v4: readonly (readonly string[])[]; readonly v6: readonly (readonly string[])[] };
  /** Whether the v6 rules are applied (--dual-stack). */
  readonly ipv6: boolean;
}

/** `OutboundMark` of Istio: marks proxy -> app traffic over lo in TPROXY mode. */
const OUTBOUND_MARK = '1338';
const DNS_PORT = '15053';

class Builder {
  readonly v4: Rule[] = [];
  readonly v6: Rule[] = [];
  append(chain: string, table: Table, ...args: string[]): void {
    this.v4.push({ table, chain, args });
    this.v6.push({ table, chain, args });
  }
  appendV4(chain: string, table: Table, ...args: string[]): void {
    this.v4.push({ table, chain, args });
  }
  appendV6(chain: string, table: Table, ...args: string[]): void {
    this.v6.push({ table, chain, args });
  }
  /** `IP` in args is replaced by `v4` for IPv4 rules and `v6` for IPv6 rules. */
  appendVersioned(v4: string, v6: string, chain: string, table: Table, ...args: string[]): void {
    this.v4.push({ table, chain, args: args.map((a) => (a === 'IP' ? v4 : a)) });
    this.v6.push({ table, chain, args: args.map((a) => (a === 'IP' ? v6 : a)) });
  }
  insert(chain: string, table: Table, at: number, ...args: string[]): void {
    this.v4.push({ table, chain, args, insertAt: at });
    this.v6.push({ table, chain, args, insertAt: at });
  }
  insertV4(chain: string, table: Table, at: number, ...args: string[]): void {
    this.v4.push({ table, chain, args, insertAt: at });
  }
  insertV6(chain: string, table: Table, at: number, ...args: string[]): void {
    this.v6.push({ table, chain, args, insertAt: at });
  }
}

const C = MESH_CHAINS;

/** Builds the rules of `mesh-iptables` for `c`. */
export function buildRules(c: IptablesConfig): RuleSet {
  const b = new Builder();
  const lo4 = c.loopbackCidrV4;
  const tproxy = c.interceptionMode === 'TPROXY';
  const v4Include = c.outboundCidrs.filter((x) => x === '*' || !x.includes(':'));
  const v6Include = c.outboundCidrs.filter((x) => x === '*' || x.includes(':'));
  const hasLoopbackInclude = c.outboundCidrs.some((x) => x.startsWith('127.') || x === '::1/128');
  let redirectDns = c.redirectDns;
  if (redirectDns && !c.captureAllDns && c.dnsServersV4.length === 0 && c.dnsServersV6.length === 0) redirectDns = false;

  // Excluded interfaces are never captured.
  for (const i of c.excludeInterfaces) {
    b.append('PREROUTING', 'nat', '-i', i, '-j', 'RETURN');
    b.append('OUTPUT', 'nat', '-o', i, '-j', 'RETURN');
  }
  if (tproxy) {
    for (const i of c.excludeInterfaces) {
      b.append('PREROUTING', 'mangle', '-i', i, '-j', 'RETURN');
      b.append('OUTPUT', 'mangle', '-o', i, '-j', 'RETURN');
    }
  }
  // Virtual interfaces' inbound traffic is not inbound capture.
  for (const i of c.virtualInterfaces) b.insert('PREROUTING', 'nat', 1, '-i', i, '-j', 'RETURN');
  if (c.dropInvalid) {
    b.append('PREROUTING', 'mangle', '-m', 'conntrack', '--ctstate', 'INVALID', '-j', C.drop);
    b.append(C.drop, 'mangle', '-j', 'DROP');
  }
  b.append(C.inbound, 'nat', '-p', 'tcp', '--dport', c.inboundTunnelPort, '-j', 'RETURN');
  b.append(C.redirect, 'nat', '-p', 'tcp', '-j', 'REDIRECT', '--to-ports', c.proxyPort);
  b.append(C.inRedirect, 'nat', '-p', 'tcp', '-j', 'REDIRECT', '--to-ports', c.inboundCapturePort);

  // Inbound.
  if (c.inboundPorts.length > 0) {
    const table: Table = tproxy ? 'mangle' : 'nat';
    if (tproxy) {
      b.append(C.divert, 'mangle', '-j', 'MARK', '--set-mark', c.tproxyMark);
      b.append(C.divert, 'mangle', '-j', 'ACCEPT');
      b.appendVersioned(lo4, '::1/128', C.tproxy, 'mangle', '!', '-d', 'IP', '-p', 'tcp', '-j', 'TPROXY', '--tproxy-mark', `${c.tproxyMark}/0xffffffff`, '--on-port', c.inboundCapturePort);
    }
    b.append('PREROUTING', table, '-p', 'tcp', '-j', C.inbound);
    if (c.inboundPorts[0] === '*') {
      for (const p of c.inboundPortsExclude) b.append(C.inbound, table, '-p', 'tcp', '--dport', p, '-j', 'RETURN');
      if (tproxy) {
        b.append(C.inbound, 'mangle', '-p', 'tcp', '-m', 'conntrack', '--ctstate', 'RELATED,ESTABLISHED', '-j', C.divert);
        b.append(C.inbound, 'mangle', '-p', 'tcp', '-j', C.tproxy);
      } else {
        b.append(C.inbound, 'nat', '-p', 'tcp', '-j', C.inRedirect);
      }
    } else {
      for (const p of c.inboundPorts) {
        if (tproxy) {
          b.append(C.inbound, 'mangle', '-p', 'tcp', '--dport', p, '-m', 'conntrack', '--ctstate', 'RELATED,ESTABLISHED', '-j', C.divert);
          b.append(C.inbound, 'mangle', '-p', 'tcp', '--dport', p, '-j', C.tproxy);
        } else {
          b.append(C.inbound, 'nat', '-p', 'tcp', '--dport', p, '-j', C.inRedirect);
        }
      }
    }
  }

  // Outbound.
  b.append('OUTPUT', 'nat', '-j', C.output);
  for (const p of c.outboundPortsExclude) {
    b.append(C.output, 'nat', '-p', 'tcp', '--dport', p, '-j', 'RETURN');
    b.append(C.output, 'nat', '-p', 'udp', '--dport', p, '-j', 'RETURN');
  }
  b.appendVersioned('127.0.0.6/32', '::6/128', C.output, 'nat', '-o', 'lo', '-s', 'IP', '-j', 'RETURN');
  for (const [flag, ids] of [['--uid-owner', c.proxyUids], ['--gid-owner', c.proxyGids]] as const) {
    for (const id of ids) {
      if (redirectDns && flag === '--uid-owner') {
        b.appendVersioned(lo4, '::1/128', C.output, 'nat', '-o', 'lo', '!', '-d', 'IP', '-p', 'tcp', '-m', 'multiport', '!', '--dports', `53,${c.inboundTunnelPort}`, '-m', 'owner', flag, id, '-j', C.inRedirect);
      } else {
        b.appendVersioned(lo4, '::1/128', C.output, 'nat', '-o', 'lo', '!', '-d', 'IP', '-p', 'tcp', '!', '--dport', c.inboundTunnelPort, '-m', 'owner', flag, id, '-j', C.inRedirect);
      }
      if (!hasLoopbackInclude) {
        if (redirectDns) b.append(C.output, 'nat', '-o', 'lo', '-p', 'tcp', '!', '--dport', '53', '-m', 'owner', '!', flag, id, '-j', 'RETURN');
        else b.append(C.output, 'nat', '-o', 'lo', '-m', 'owner', '!', flag, id, '-j', 'RETURN');
      }
      b.append(C.output, 'nat', '-m', 'owner', flag, id, '-j', 'RETURN');
    }
  }
  if (c.ownerGroups.except) {
    for (const g of c.ownerGroups.values) b.append(C.output, 'nat', '-m', 'owner', '--gid-owner', g, '-j', 'RETURN');
  } else {
    b.append(C.output, 'nat', ...c.ownerGroups.values.flatMap((g) => ['-m', 'owner', '!', '--gid-owner', g]), '-j', 'RETURN');
  }
  if (redirectDns) dnsRules(b, c);
  b.appendVersioned(lo4, '::1/128', C.output, 'nat', '-d', 'IP', '-j', 'RETURN');
  for (const x of c.outboundCidrsExclude) (x.includes(':') ? b.appendV6 : b.appendV4).call(b, C.output, 'nat', '-d', x, '-j', 'RETURN');
  for (const p of c.outboundPorts) b.append(C.output, 'nat', '-p', 'tcp', '--dport', p, '-j', C.redirect);
  outboundInclude(b, c, v4Include, 'v4');
  outboundInclude(b, c, v6Include, 'v6');

  const routes: { v4: string[][]; v6: string[][] } = { v4: [], v6: [] };
  if (tproxy) {
    b.append('PREROUTING', 'mangle', '-p', 'tcp', '-m', 'mark', '--mark', c.tproxyMark, '-j', 'CONNMARK', '--save-mark');
    b.append('OUTPUT', 'mangle', '-p', 'tcp', '-o', 'lo', '-m', 'mark', '--mark', c.tproxyMark, '-j', 'RETURN');
    for (const [flag, ids] of [['--uid-owner', c.proxyUids], ['--gid-owner', c.proxyGids]] as const) {
      for (const id of ids) b.appendVersioned(lo4, '::1/128', 'OUTPUT', 'mangle', '!', '-d', 'IP', '-p', 'tcp', '-o', 'lo', '-m', 'owner', flag, id, '-j', 'MARK', '--set-mark', OUTBOUND_MARK);
    }
    b.append('OUTPUT', 'mangle', '-p', 'tcp', '-m', 'connmark', '--mark', c.tproxyMark, '-j', 'CONNMARK', '--restore-mark');
    b.insert(C.inbound, 'mangle', 1, '-p', 'tcp', '-m', 'mark', '--mark', c.tproxyMark, '-j', 'RETURN');
    b.insertV4(C.inbound, 'mangle', 2, '-p', 'tcp', '-s', '127.0.0.6/32', '-i', 'lo', '-j', 'RETURN');
    b.insertV6(C.inbound, 'mangle', 2, '-p', 'tcp', '-s', '::6/128', '-i', 'lo', '-j', 'RETURN');
    b.insert(C.inbound, 'mangle', 3, '-p', 'tcp', '-i', 'lo', '-m', 'mark', '!', '--mark', OUTBOUND_MARK, '-j', 'RETURN');
    routes.v4.push(['-f', 'inet', 'rule', 'add', 'fwmark', c.tproxyMark, 'lookup', c.tproxyRouteTable], ['-f', 'inet', 'route', 'add', 'local', 'default', 'dev', 'lo', 'table', c.tproxyRouteTable]);
    routes.v6.push(['-f', 'inet6', 'rule', 'add', 'fwmark', c.tproxyMark, 'lookup', c.tproxyRouteTable], ['-f', 'inet6', 'route', 'add', 'local', 'default', 'dev', 'lo', 'table', c.tproxyRouteTable]);
  }
  const withTrace = (rules: Rule[]): Rule[] => (c.traceLogging ? traced(rules) : rules);
  return { v4: withTrace(b.v4), v6: withTrace(b.v6), routes, ipv6: c.dualStack };
}

function outboundInclude(b: Builder, c: IptablesConfig, include: readonly string[], family: Family): void {
  const append = family === 'v4' ? b.appendV4.bind(b) : b.appendV6.bind(b);
  const insert = family === 'v4' ? b.insertV4.bind(b) : b.insertV6.bind(b);
  if (include[0] === '*') {
    append(C.output, 'nat', '-j', C.redirect);
    for (const i of c.virtualInterfaces) insert('PREROUTING', 'nat', 1, '-i', i, '-j', C.redirect);
  } else {
    for (const cidr of include) {
      for (const i of c.virtualInterfaces) insert('PREROUTING', 'nat', 1, '-i', i, '-d', cidr, '-j', C.redirect);
      append(C.output, 'nat', '-d', cidr, '-j', C.redirect);
    }
  }
}

function dnsRules(b: Builder, c: IptablesConfig): void {
  b.append('OUTPUT', 'raw', '-j', C.outputDns);
  if (c.captureAllDns || c.dnsServersV4.length > 0) b.appendV4(C.output, 'nat', '-j', C.outputDns);
  if (c.captureAllDns || c.dnsServersV6.length > 0) b.appendV6(C.output, 'nat', '-j', C.outputDns);
  for (const proto of ['tcp', 'udp']) {
    const to = proto === 'tcp' ? '--to-ports' : '--to-port';
    if (c.captureAllDns) b.append(C.outputDns, 'nat', '-p', proto, '--dport', '53', '-j', 'REDIRECT', to, DNS_PORT);
    else {
      for (const s of c.dnsServersV4) b.appendV4(C.outputDns, 'nat', '-p', proto, '--dport', '53', '-d', `${s}/32`, '-j', 'REDIRECT', to, DNS_PORT);
      for (const s of c.dnsServersV6) b.appendV6(C.outputDns, 'nat', '-p', proto, '--dport', '53', '-d', `${s}/128`, '-j', 'REDIRECT', to, DNS_PORT);
    }
  }
  // Conntrack zones keep the agent's upstream queries apart from the app's queries to the agent.
  for (const [flag, ids] of [['--uid-owner', c.proxyUids], ['--gid-owner', c.proxyGids]] as const) {
    for (const id of ids) {
      b.append(C.outputDns, 'raw', '-p', 'udp', '--dport', '53', '-m', 'owner', flag, id, '-j', 'CT', '--zone', '1');
      b.append(C.outputDns, 'raw', '-p', 'udp', '--sport', DNS_PORT, '-m', 'owner', flag, id, '-j', 'CT', '--zone', '2');
    }
  }
  if (c.captureAllDns) {
    b.append('PREROUTING', 'raw', '-j', C.inbound);
    b.append(C.outputDns, 'raw', '-p', 'udp', '--dport', '53', '-j', 'CT', '--zone', '2');
    b.append(C.inbound, 'raw', '-p', 'udp', '--sport', '53', '-j', 'CT', '--zone', '1');
  } else {
    if (c.dnsServersV4.length > 0) b.appendV4('PREROUTING', 'raw', '-j', C.inbound);
    for (const s of c.dnsServersV4) {
      b.appendV4(C.outputDns, 'raw', '-p', 'udp', '--dport', '53', '-d', `${s}/32`, '-j', 'CT', '--zone', '2');
      b.appendV4(C.inbound, 'raw', '-p', 'udp', '--sport', '53', '-s', `${s}/32`, '-j', 'CT', '--zone', '1');
    }
    if (c.dnsServersV6.length > 0) b.appendV6('PREROUTING', 'raw', '-j', C.inbound);
    for (const s of c.dnsServersV6) {
      b.appendV6(C.outputDns, 'raw', '-p', 'udp', '--dport', '53', '-d', `${s}/128`, '-j', 'CT', '--zone', '2');
      b.appendV6(C.inbound, 'raw', '-p', 'udp', '--sport', '53', '-s', `${s}/128`, '-j', 'CT', '--zone', '1');
    }
  }
}

/** --iptables-trace-logging: every mesh chain starts with a LOG rule naming table and chain. */
function traced(rules: Rule[]): Rule[] {
  const seen = new Set<string>();
  const out: Rule[] = [];
  for (const r of rules) {
    const key = `${r.table}/${r.chain}`;
    if (r.chain.startsWith('MESH_') && !seen.has(key)) {
      seen.add(key);
      out.push({ table: r.table, chain: r.chain, args: ['-j', 'LOG', '--log-prefix', `${key} `], insertAt: 1 });
    }
    out.push(r);
  }
  return out;
}

const quote = (a: string): string => (/^[\w.,:/!*-]+$/.test(a) ? a : `"${a.replace(/(["\\])/g, '\\$1')}"`);

/** The `iptables-restore --noflush` input of one family: tables in first-use order, mesh chains declared, rules in order. */
export function toRestoreInput(rules: readonly Rule[]): string {
  const tables: Table[] = [];
  for (const r of rules) if (!tables.includes(r.table)) tables.push(r.table);
  const lines: string[] = [];
  for (const t of tables) {
    const inTable = rules.filter((r) => r.table === t);
    lines.push(`* ${t}`);
    const chains: string[] = [];
    for (const r of inTable) {
      for (const name of [r.chain, jumpTarget(r)]) if (name?.startsWith('MESH_') && !chains.includes(name)) chains.push(name);
    }
    for (const ch of chains) lines.push(`-N ${ch}`);
    for (const r of inTable) lines.push([r.insertAt ? `-I ${r.chain} ${r.insertAt}` : `-A ${r.chain}`, ...r.args.map(quote)].join(' '));
    lines.push('COMMIT');
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

/** The chain a rule jumps to (`-j X`), if any. */
export function jumpTarget(r: Rule): string | undefined {
  const i = r.args.indexOf('-j');
  return i >= 0 ? r.args[i + 1] : undefined;
}
