import { isIP } from 'node:net';
import type { ServerTLSSettings, SidecarPort, SidecarSpec } from '../../types.js';
import { childPath, type IssueCollector } from '../issue.js';
import { checkPort } from '../values.js';
import { checkSelectorLabels, report } from './common.js';
import { checkNamespacedHost, checkServerTlsSources, checkTlsOptions } from './gateway.js';
import { isKnownProtocol } from './service-entry.js';

const DEFAULT_ENDPOINT = /^(127\.0\.0\.1|0\.0\.0\.0|\[::1\]|\[::\]):[0-9]+$|^unix:\/\/.+$/;

function checkSidecarPort(port: SidecarPort, path: string, issues: IssueCollector): void {
  if (port.number === undefined) issues.error(childPath(path, 'number'), 'port number is required');
  else report(issues, childPath(path, 'number'), checkPort(port.number));
  if (!isKnownProtocol(port.protocol)) issues.error(childPath(path, 'protocol'), `unsupported protocol "${port.protocol}"`);
}

/**
 * An egress listener's port, bind and captureMode as Istio's validateSidecarEgressPortBindAndCaptureMode: port 0
 * needs a unix domain socket bind (and captureMode DEFAULT or NONE); another port, a bind that is an IP.
 */
function checkEgressPortAndBind(listener: NonNullable<SidecarSpec['egress']>[number], at: string, issues: IssueCollector): void {
  const port = listener.port!;
  const portPath = childPath(at, 'port');
  const bindPath = childPath(at, 'bind');
  const bind = listener.bind ?? '';
  if (port.number !== 0) {
    checkSidecarPort(port, portPath, issues);
    if (bind !== '' && !isIP(bind)) issues.error(bindPath, `${bind} is not a valid IP`);
    return;
  }
  if (!isKnownProtocol(port.protocol)) issues.error(childPath(portPath, 'protocol'), `unsupported protocol "${port.protocol}"`);
  if (!bind.startsWith('unix://')) issues.error(bindPath, 'sidecar: ports with 0 value must have a unix domain socket bind address');
  else if (bind.length === 'unix://'.length) issues.error(bindPath, 'unix address must not be empty');
  if (listener.captureMode !== undefined && listener.captureMode !== 'DEFAULT' && listener.captureMode !== 'NONE') {
    issues.error(childPath(at, 'captureMode'), 'sidecar: captureMode must be DEFAULT/NONE for unix domain socket listeners');
  }
}

/** What Istio refuses in a Sidecar ingress listener's `tls` (the sidecar terminates TLS with files only). */
function checkIngressTls(tls: ServerTLSSettings, protocol: string | undefined, path: string, issues: IssueCollector): void {
  if ((tls.subjectAltNames?.length ?? 0) > 0) issues.error(childPath(path, 'subjectAltNames'), 'sidecar: subjectAltNames is not supported in ingress tls');
  if (tls.httpsRedirect === true) issues.error(childPath(path, 'httpsRedirect'), 'sidecar: httpsRedirect is not supported');
  if ((tls.credentialName ?? '') !== '') issues.error(childPath(path, 'credentialName'), 'sidecar: credentialName is not currently supported');
  if ((tls.credentialNames?.length ?? 0) > 0) issues.error(childPath(path, 'credentialNames'), 'sidecar: credentialNames is not currently supported');
  if ((tls.tlsCertificates?.length ?? 0) > 0) issues.error(childPath(path, 'tlsCertificates'), 'sidecar: tls_certificates is not currently supported');
  if (tls.mode === 'MESH_MUTUAL' || tls.mode === 'AUTO_PASSTHROUGH') {
    issues.error(childPath(path, 'mode'), `configuration is invalid: cannot set mode to ${tls.mode} in sidecar ingress tls`);
  }
  const p = (protocol ?? '').toUpperCase();
  if (p !== 'HTTPS' && p !== 'TLS') issues.error(path, 'server cannot have TLS settings for non HTTPS/TLS ports');
  checkTlsOptions(tls, path, issues);
}

/** Semantic checks of a Sidecar spec, after Istio's validation. */
export function validateSidecar(spec: SidecarSpec, issues: IssueCollector, path = 'spec'): void {
  if (!spec.egress?.length && !spec.ingress?.length && !spec.outboundTrafficPolicy && !spec.inboundConnectionPool) {
    issues.error(path, 'sidecar: empty configuration provided');
  }
  if (spec.workloadSelector && Object.keys(spec.workloadSelector.labels ?? {}).length === 0) {
    issues.error(childPath(childPath(path, 'workloadSelector'), 'labels'), 'sidecar: workloadSelector needs at least one label');
  }
  checkSelectorLabels(spec.workloadSelector?.labels, childPath(childPath(path, 'workloadSelector'), 'labels'), issues);
  const ingressPorts = new Set<number>();
  spec.ingress?.forEach((listener, i) => {
    const at = childPath(childPath(path, 'ingress'), i);
    checkSidecarPort(listener.port, childPath(at, 'port'), issues);
    // NOTE: as Istio's validateSidecarIngressPortAndBind: an ingress bind is an IP (no unix sockets inbound).
    if ((listener.bind ?? '') !== '' && !isIP(listener.bind!)) issues.error(childPath(at, 'bind'), `${listener.bind} is not a valid IP`);
    if (listener.port.number !== undefined) {
      if (ingressPorts.has(listener.port.number)) issues.error(childPath(childPath(at, 'port'), 'number'), `sidecar: ports on IP bound listeners must be unique`);
      ingressPorts.add(listener.port.number);
    }
    if (listener.tls !== undefined) {
      checkServerTlsSources(listener.tls, childPath(at, 'tls'), issues);
      checkIngressTls(listener.tls, listener.port.protocol, childPath(at, 'tls'), issues);
    }
    if (listener.defaultEndpoint !== undefined && listener.defaultEndpoint !== '' && !DEFAULT_ENDPOINT.test(listener.defaultEndpoint)) {
      issues.error(childPath(at, 'defaultEndpoint'), 'defaultEndpoint must be 127.0.0.1:<port>, 0.0.0.0:<port>, [::1]:<port>, [::]:<port> or unix://<path>');
    }
  });
  const egress = spec.egress ?? [];
  const egressPorts = new Set<number>();
  const egressSockets = new Set<string>();
  egress.forEach((listener, i) => {
    const at = childPath(childPath(path, 'egress'), i);
    if (listener.port === undefined) {
      if (i !== egress.length - 1) issues.error(at, 'sidecar: the egress listener with empty port must be the last listener');
    } else {
      checkEgressPortAndBind(listener, at, issues);
      const n = listener.port.number;
      if (n === 0) {
        // NOTE: as Istio, unix domain socket listeners (port 0) are unique by bind, not by port.
        if (egressSockets.has(listener.bind ?? '')) issues.error(childPath(at, 'bind'), 'sidecar: unix domain socket values for listeners must be unique');
        egressSockets.add(listener.bind ?? '');
      } else if (n !== undefined) {
        if (egressPorts.has(n)) issues.error(childPath(childPath(at, 'port'), 'number'), `sidecar: duplicate egress port ${n}`);
        egressPorts.add(n);
      }
    }
    if (listener.hosts.length === 0) issues.error(childPath(at, 'hosts'), 'sidecar: egress listener must have at least one host');
    listener.hosts.forEach((h, j) => report(issues, childPath(childPath(at, 'hosts'), j), checkNamespacedHost(h, true, true)));
  });
  const policy = spec.outboundTrafficPolicy;
  if (policy?.egressProxy !== undefined && policy.mode !== 'ALLOW_ANY') {
    issues.error(childPath(childPath(path, 'outboundTrafficPolicy'), 'egressProxy'), 'egressProxy requires mode ALLOW_ANY');
  }
}
