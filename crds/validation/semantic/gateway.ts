import type { GatewaySpec, ServerTLSSettings } from '../../types.js';
import { childPath, type IssueCollector } from '../issue.js';
import { checkDns1123Label, checkWildcardHost } from '../values.js';
import { report } from './common.js';
import { isKnownProtocol } from './service-entry.js';

/**
 * Checks a `[namespace/]host` entry (Gateway server hosts, Sidecar egress hosts): the namespace is `*`, `.`,
 * `~` (when `allowTilde`) or a DNS label; the host is `*` or a (wildcard) DNS name.
 */
export function checkNamespacedHost(value: string, requireNamespace: boolean, allowTilde: boolean): string | undefined {
  const parts = value.split('/');
  if (parts.length > 2 || (requireNamespace && parts.length !== 2)) {
    return `host "${value}" must be of the form namespace/dnsName`;
  }
  const [ns, host] = parts.length === 2 ? [parts[0]!, parts[1]!] : [undefined, parts[0]!];
  if (ns !== undefined && ns !== '*' && ns !== '.' && !(allowTilde && ns === '~')) {
    const bad = checkDns1123Label(ns);
    if (bad !== undefined) return `host "${value}": namespace ${bad}`;
  }
  return checkWildcardHost(host);
}

/**
 * Istio's CEL rules on the certificate sources of server TLS settings (Gateway servers, Sidecar
 * ingress): credentialName, credentialNames and tlsCertificates exclude each other pairwise as the CRD
 * counts them (its third rule counts credentialNames and tlsCertificates again under the message naming
 * credentialName), then Istio's webhook rule: at most one source in all.
 */
export function checkServerTlsSources(tls: ServerTLSSettings, path: string, issues: IssueCollector): void {
  const names = tls.credentialNames !== undefined;
  const certs = tls.tlsCertificates !== undefined;
  if (names && certs) issues.error(path, 'only one of credentialNames or tlsCertificates can be set');
  if (tls.credentialName !== undefined && names) issues.error(path, 'only one of credentialName or credentialNames can be set');
  if (names && certs) issues.error(path, 'only one of credentialName or tlsCertificates can be set');
  // NOTE: credentialName(s) with serverCertificate/privateKey has its own message (checkServerTls).
  if (certs && (tls.credentialName !== undefined || tls.serverCertificate !== undefined || tls.privateKey !== undefined)) {
    issues.error(path, 'only one of credentialName, credentialNames, serverCertificate/privateKey, tlsCertificates should be specified');
  }
}

/** Checks server TLS settings against the server protocol. */
export function checkServerTls(tls: ServerTLSSettings | undefined, protocol: string, path: string, issues: IssueCollector): void {
  const p = protocol.toUpperCase();
  if (tls === undefined) {
    if (p === 'HTTPS' || p === 'TLS') issues.error(path, `server with protocol ${protocol} needs tls settings`);
    return;
  }
  const mode = tls.mode ?? 'PASSTHROUGH';
  if (tls.httpsRedirect === true && tls.mode === undefined) return;
  if ((mode === 'PASSTHROUGH' || mode === 'AUTO_PASSTHROUGH') && p !== 'TLS') {
    issues.error(childPath(path, 'mode'), `tls mode ${mode} requires protocol TLS`);
  }
  checkServerTlsSources(tls, path, issues);
  if (mode === 'SIMPLE' || mode === 'MUTUAL' || mode === 'OPTIONAL_MUTUAL') {
    const credential = tls.credentialName !== undefined || (tls.credentialNames?.length ?? 0) > 0;
    const certs = tls.tlsCertificates ?? [];
    if (credential && (tls.serverCertificate !== undefined || tls.privateKey !== undefined)) {
      issues.error(path, 'cannot set serverCertificate or privateKey together with credentialName');
    }
    if (!credential && certs.length === 0 && (tls.serverCertificate === undefined || tls.privateKey === undefined)) {
      issues.error(path, `tls mode ${mode} needs credentialName, tlsCertificates or serverCertificate and privateKey`);
    }
    certs.forEach((c, i) => {
      const cAt = childPath(childPath(path, 'tlsCertificates'), i);
      if ((c.serverCertificate ?? '') === '') issues.error(childPath(cAt, 'serverCertificate'), `tls mode ${mode} requires a server certificate`);
      if ((c.privateKey ?? '') === '') issues.error(childPath(cAt, 'privateKey'), `tls mode ${mode} requires a private key`);
    });
    if (mode !== 'SIMPLE' && !credential && tls.caCertificates === undefined) {
      issues.error(path, `tls mode ${mode} needs caCertificates or credentialName`);
    }
  }
  checkTlsOptions(tls, path, issues);
}

/** Istio's validateTLSOptions: the protocol versions in order. */
export function checkTlsOptions(tls: ServerTLSSettings, path: string, issues: IssueCollector): void {
  if (tls.minProtocolVersion !== undefined && tls.maxProtocolVersion !== undefined) {
    const order = ['TLS_AUTO', 'TLSV1_0', 'TLSV1_1', 'TLSV1_2', 'TLSV1_3'];
    if (tls.minProtocolVersion !== 'TLS_AUTO' && tls.maxProtocolVersion !== 'TLS_AUTO'
      && order.indexOf(tls.minProtocolVersion) > order.indexOf(tls.maxProtocolVersion)) {
      issues.error(path, 'minProtocolVersion is above maxProtocolVersion');
    }
  }
}

/** Semantic checks of a Gateway spec, after Istio's validation. */
export function validateGateway(spec: GatewaySpec, issues: IssueCollector, path = 'spec'): void {
  const servers = spec.servers ?? [];
  if (servers.length === 0) issues.error(childPath(path, 'servers'), 'gateway must have at least one server');
  const names = new Set<string>();
  servers.forEach((server, i) => {
    const at = childPath(childPath(path, 'servers'), i);
    if (server.hosts.length === 0) issues.error(childPath(at, 'hosts'), 'server must have at least one host');
    server.hosts.forEach((h, j) => report(issues, childPath(childPath(at, 'hosts'), j), checkNamespacedHost(h, false, false)));
    if (!isKnownProtocol(server.port.protocol) || server.port.protocol === '') {
      issues.error(childPath(childPath(at, 'port'), 'protocol'), `unsupported protocol "${server.port.protocol}"`);
    }
    if (server.name !== undefined && server.name !== '') {
      if (names.has(server.name)) issues.error(childPath(at, 'name'), `duplicate server name "${server.name}"`);
      names.add(server.name);
    }
    checkServerTls(server.tls, server.port.protocol, childPath(at, 'tls'), issues);
  });
}
