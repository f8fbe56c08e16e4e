/**
 * Value checks shared by the semantic validators: DNS names, hosts, IPs, Go durations, RE2 regexes.
 * Each returns `undefined` when the value is fine, otherwise a message saying what is wrong.
 */
import { isIP } from 'node:net';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** A DNS-1123 label: lowercase alphanumerics and '-', at most 63 characters. */
export function checkDns1123Label(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > 63) return `"${value}" is longer than 63 characters`;
  if (!DNS1123_LABEL.test(value)) {
    return `"${value}" is not a DNS-1123 label (lowercase letters, digits and '-', starting and ending with an alphanumeric)`;
  }
  return undefined;
}

/** A DNS-1123 subdomain: dot-separated labels, at most 253 characters. */
export function checkDns1123Subdomain(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > 253) return `"${value}" is longer than 253 characters`;
  if (!value.split('.').every((l) => DNS1123_LABEL.test(l))) {
    return `"${value}" is not a DNS-1123 subdomain (lowercase letters, digits, '-' and '.')`;
  }
  return undefined;
}

const HOST_LABEL = /^[A-Za-z0-9]([-A-Za-z0-9_]*[A-Za-z0-9])?$/;

/**
 * A service host as VirtualService/DestinationRule/ServiceEntry take it: a DNS name, optionally with a
 * leading `*.` wildcard, or `*` alone when `allowStar`.
 */
export function checkWildcardHost(value: string, allowStar = true): string | undefined {
  if (value.length === 0) return 'host must not be empty';
  if (value === '*') return allowStar ? undefined : 'hostname cannot be wildcard ("*" is not allowed here)';
  if (value.length > 255) return `host "${value}" is longer than 255 characters`;
  const name = value.startsWith('*.') ? value.slice(2) : value;
  const labels = name.endsWith('.') ? name.slice(0, -1).split('.') : name.split('.');
  for (const label of labels) {
    if (label.length === 0 || label.length > 63 || !HOST_LABEL.test(label)) {
      return `host "${value}" is not a valid DNS name or wildcard (*.example.com)`;
    }
  }
  return undefined;
}

const WILDCARD_FIRST_LABEL = /^(\*|(\*|\*-)?[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?)$/;
const DNS1123_LABEL_ANY_CASE = /^[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?$/;

/**
 * A domain with an optional wildcard first label, as Istio's ValidateWildcardDomain (DestinationRule
 * `host`) with its messages: the first label may be `*`, `*foo` or `*-foo`; the others are DNS-1123
 * labels (either case, at most 63 characters), the last may be empty (`example.com.`), and the top-level
 * domain is not all digits.
 */
export function checkWildcardDomain(domain: string): string | undefined {
  if (domain.length > 255) return `domain name "${domain}" too long (max 255)`;
  if (domain.length === 0) return 'empty domain name not allowed';
  const dot = domain.indexOf('.');
  const first = dot < 0 ? domain : domain.slice(0, dot);
  if (first.length > 63 || !WILDCARD_FIRST_LABEL.test(first)) return `domain name "${domain}" invalid (label "${first}" invalid)`;
  if (dot < 0) return undefined;
  const labels = domain.slice(dot + 1).split('.');
  const top = labels[labels.length - 1]!;
  // NOTE: Go's strconv.Atoi: an optional sign, then digits.
  if (/^[+-]?[0-9]+$/.test(top)) return `domain name "${domain}" invalid (top level domain "${top}" cannot be all-numeric)`;
  for (const [i, label] of labels.entries()) {
    if (i === labels.length - 1 && label === '') return undefined;
    if (label.length > 63 || !DNS1123_LABEL_ANY_CASE.test(label)) return `domain name "${domain}" invalid (label "${label}" invalid)`;
  }
  return undefined;
}

/** Istio's ValidateFQDN (agent validation.go), with its messages: a DNS name without wildcards, labels in either case. */
export function checkFqdn(fqdn: string): string | undefined {
  if (fqdn.length > 255) return `domain name "${fqdn}" too long (max 255)`;
  if (fqdn.length === 0) return 'empty domain name not allowed';
  const labels = fqdn.split('.');
  const top = labels[labels.length - 1]!;
  if (/^[+-]?[0-9]+$/.test(top)) return `domain name "${fqdn}" invalid (top level domain "${top}" cannot be all-numeric)`;
  for (const [i, label] of labels.entries()) {
    if (i === labels.length - 1 && label === '') return undefined;
    if (label.length > 63 || !DNS1123_LABEL_ANY_CASE.test(label)) return `domain name "${fqdn}" invalid (label "${label}" invalid)`;
  }
  return undefined;
}

/** Istio's ValidatePartialWildCard: a `*` only as `*` alone or a leading `*.` label. */
export function checkPartialWildcard(host: string): string | undefined {
  return host.includes('*') && host.length !== 1 && !host.startsWith('*.') ? `partial wildcard "${host}" not allowed` : undefined;
}

const OUTBOUND_SNI_FORMAT = 'outbound_.<PORT>_._.<HOSTNAME>';

/**
 * Istio's ValidateWildcardDomainForVirtualServiceBoundToGateway: as checkWildcardDomain, and with `sni` (TLS routes
 * matching SNI hosts) also the auto-generated `outbound_.<PORT>_._.<HOSTNAME>` names of AUTO_PASSTHROUGH.
 */
export function checkGatewayVirtualServiceHost(sni: boolean, domain: string): string | undefined {
  if (domain.length > 255) return `domain name "${domain}" too long (max 255)`;
  if (domain.length === 0) return 'empty domain name not allowed';
  if (!sni || !domain.startsWith('outbound_')) return checkWildcardDomain(domain);
  const parts = domain.split('_');
  if (parts.length < 4) return `domain name ${domain} invalid, should follow '${OUTBOUND_SNI_FORMAT}' format`;
  const trim = (v: string): string => v.replace(/^\.+|\.+$/g, '');
  const port = trim(parts[1]!);
  const hostname = trim(parts[3]!);
  if (!/[0-9]/.test(port)) return `domain name "${domain}" invalid (label "${port}" invalid). should follow ${OUTBOUND_SNI_FORMAT} format`;
  if (!/[a-zA-Z]/.test(hostname)) return `domain name "${domain}" invalid (label "${hostname}" invalid). should follow ${OUTBOUND_SNI_FORMAT} format`;
  return undefined;
}

/** Istio's host.Name.Matches: whether two hosts (either may be a `*` wildcard) overlap. */
export function hostsOverlap(a: string, b: string): boolean {
  const aw = a.startsWith('*');
  const bw = b.startsWith('*');
  if (aw && bw) return a.length < b.length ? b.slice(1).endsWith(a.slice(1)) : a.slice(1).endsWith(b.slice(1));
  if (aw) return b.endsWith(a.slice(1));
  if (bw) return a.endsWith(b.slice(1));
  return a === b;
}

/** Istio's ValidateIPSubnet (ServiceEntry `addresses`), with its messages: an IP address, or a CIDR block with one `/`. */
export function checkIpSubnet(value: string): string | undefined {
  if (value.split('/').length === 2) {
    const [ip, bits] = value.split('/') as [string, string];
    const max = isIP(ip) === 4 ? 32 : isIP(ip) === 6 ? 128 : -1;
    // NOTE: Go's netip.ParsePrefix: decimal bits without a sign or leading zeros, at most the address length.
    if (max < 0 || !/^(0|[1-9][0-9]*)$/.test(bits) || Number(bits) > max) return `${value} is not a valid CIDR block`;
    return undefined;
  }
  return isIP(value) === 0 ? `${value} is not a valid IP` : undefined;
}

/** An IP address or a CIDR block. */
export function checkIpOrCidr(value: string): string | undefined {
  const [ip, bits, ...rest] = value.split('/');
  if (rest.length > 0 || ip === undefined || isIP(ip) === 0) return `"${value}" is not an IP address or CIDR block`;
  if (bits !== undefined) {
    const max = isIP(ip) === 4 ? 32 : 128;
    if (!/^[0-9]+$/.test(bits) || Number(bits) > max) return `"${value}" has an invalid prefix length`;
  }
  return undefined;
}

/** True for IPv4 or IPv6 addresses. */
export function isIpAddress(value: string): boolean {
  return isIP(value) !== 0;
}

const DURATION_UNITS_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Parses Go duration text (`1s`, `0.5s`, `1h30m`, `100ms`) to milliseconds; undefined when malformed. */
export function parseGoDurationMs(value: string): number | undefined {
  const part = /([0-9]+(?:\.[0-9]*)?)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let index = 0;
  if (value.length === 0) return undefined;
  while (index < value.length) {
    part.lastIndex = index;
    const m = part.exec(value);
    if (!m) return undefined;
    total += Number(m[1]) * (DURATION_UNITS_MS[m[2]!] ?? Number.NaN);
    index = part.lastIndex;
  }
  return total;
}

/** A protobuf duration that is well formed and at least 1ms (as Istio requires). */
export function checkDuration(value: string): string | undefined {
  const ms = parseGoDurationMs(value);
  if (ms === undefined) return `invalid duration "${value}": use forms such as 1s, 0.5s, 100ms or 1h30m`;
  // NOTE: Istio's CEL message (`duration(self) >= duration('1ms')` on every duration field).
  if (ms < 1) return `must be a valid duration greater than 1ms (got "${value}")`;
  return undefined;
}

/**
 * A regular expression in the RE2 subset Envoy accepts: no lookarounds, no backreferences, and it
 * must compile.
 */
export function checkRe2Regex(value: string): string | undefined {
  if (/\(\?<?[=!]/.test(value)) return `regex "${value}" uses a lookaround, which RE2 does not support`;
  if (/\\[1-9]|\\k</.test(value)) return `regex "${value}" uses a backreference, which RE2 does not support`;
  try {
    // NOTE: RE2 spells named groups (?P<name>...); JavaScript does not know the P.
    new RegExp(value.replace(/\(\?P</g, '(?<'));
  } catch (error) {
    return `regex "${value}" does not compile: ${(error as Error).message}`;
  }
  return undefined;
}

/** A percentage in 0..100. */
export function checkPercent(value: number): string | undefined {
  return value < 0 || value > 100 ? `percentage ${value} must be in 0..100` : undefined;
}

/** A port number in 1..65535. */
export function checkPort(value: number): string | undefined {
  return Number.isInteger(value) && value >= 1 && value <= 65535 ? undefined : `port must be between 1-65535 (got ${value})`;
}

/** `exportTo` entries: `.`, `*`, `~` (alone) or a namespace name. */
export function checkExportTo(values: readonly string[]): string | undefined {
  for (const v of values) {
    // NOTE: a non-string entry is the schema's error (found by fuzzing: it was named "[object Object]").
    if (typeof v !== 'string') continue;
    if (v === '.' || v === '*') continue;
    if (v === '~') {
      if (values.length > 1) return 'exportTo "~" (export to no namespace) must be the only entry';
      continue;
    }
    const bad = checkDns1123Label(v);
    if (bad !== undefined) return `exportTo entry ${bad}`;
  }
  if (new Set(values).size !== values.length) return 'exportTo has duplicate entries';
  return undefined;
}
