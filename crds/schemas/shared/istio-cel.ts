/**
 * Istio's CEL rules (`x-kubernetes-validations` of istio/api's generated CRDs,
 * kubernetes/customresourcedefinitions.gen.yaml, api of 2026-08-24), written once: the schemas put them on their
 * nodes (so the rendered CRDs carry them, at the same nodes as Istio's), and the rule table of the tests
 * (`crds/testing/istio-cel-rules.ts`) takes its messages from here. None names `istio`, so none is renamed.
 */
import { duration, withRules, type CelRule, type StringNode } from '../../schema/builders.js';

function cel(rule: string, message: string): CelRule {
  return { message, rule };
}

const PORT_NAME = '^[a-zA-Z0-9](?:[-a-zA-Z0-9]*[a-zA-Z0-9])?$';

/** Every rule, by a name of ours. */
export const CEL = {
  /** On a protobuf Duration. */
  duration: cel("duration(self) >= duration('1ms')", 'must be a valid duration greater than 1ms'),
  /** On a port number (uint32 in the proto). */
  port: cel('0 < self && self <= 65535', 'port must be between 1-65535'),
  /** On a map of port numbers by name (WorkloadEntry `ports`). */
  portNames: cel(`self.all(key, size(key) < 63 && key.matches("${PORT_NAME}"))`, 'port name must be valid'),

  /** On `matchLabels` of a WorkloadSelector (policies). */
  matchLabelKeyWildcard: cel('self.all(key, !key.contains("*"))', 'wildcard not allowed in label key match'),
  matchLabelKeyEmpty: cel('self.all(key, key.size() != 0)', 'key must not be empty'),
  /** On a value of `matchLabels`. */
  matchLabelValueWildcard: cel('!self.contains("*")', 'wildcard not allowed in label value match'),
  /** On a value of `labels` of a workloadSelector (ServiceEntry, Sidecar, EnvoyFilter). */
  selectorLabelWildcard: cel('!self.contains("*")', 'wildcard is not supported in selector'),

  /** On the spec of a policy with `selector`, `targetRef` and `targetRefs`. */
  targetRefsOrSelector: cel(
    '(has(self.selector) ? 1 : 0) + (has(self.targetRef) ? 1 : 0) + (has(self.targetRefs) ? 1 : 0) <= 1',
    'only one of targetRefs or selector can be set',
  ),
  /** On the spec of an EnvoyFilter. */
  targetRefsOrWorkloadSelector: cel(
    '(has(self.workloadSelector) ? 1 : 0) + (has(self.targetRefs) ? 1 : 0) <= 1',
    'only one of targetRefs or workloadSelector can be set',
  ),
  /** On `namespace` of a PolicyTargetReference. */
  targetRefSameNamespace: cel('self.size() == 0', 'cross namespace referencing is not currently supported'),

  /** On the spec of a ServiceEntry. */
  serviceEntrySelectorOrEndpoints: cel(
    '(has(self.workloadSelector) ? 1 : 0) + (has(self.endpoints) ? 1 : 0) <= 1',
    'only one of WorkloadSelector or Endpoints can be set',
  ),
  serviceEntryCidrResolution: cel(
    '!((has(self.addresses) ? self.addresses : []).exists(k, k.contains("/")) && !((has(self.resolution) ? self.resolution : "NONE") in ["STATIC", "NONE"]))',
    'CIDR addresses are allowed only for NONE/STATIC resolution types',
  ),
  serviceEntryNoneEndpoints: cel(
    '((has(self.resolution) ? self.resolution : "NONE") == "NONE") ? !has(self.endpoints) : true',
    'NONE mode cannot set endpoints',
  ),
  serviceEntryDnsRoundRobin: cel(
    '((has(self.resolution) ? self.resolution : "") == "DNS_ROUND_ROBIN") ? ((has(self.endpoints) ? self.endpoints : []).size() <= 1) : true',
    'DNS_ROUND_ROBIN mode cannot have multiple endpoints',
  ),
  /** On a ServiceEntry host. */
  hostNotWildcard: cel('self != "*"', 'hostname cannot be wildcard'),
  /** On ServiceEntry `ports`. */
  portNumbersUnique: cel('self.all(l1, self.exists_one(l2, l1.number == l2.number))', 'port number cannot be duplicated'),

  /** On a WorkloadEntry (spec, ServiceEntry endpoint). */
  addressRequired: cel('has(self.address) || has(self.network)', 'Address is required'),
  /** On a WorkloadEntry (spec, ServiceEntry endpoint, WorkloadGroup template). */
  udsNoPorts: cel('(has(self.address) ? self.address : "").startsWith("unix://") ? !has(self.ports) : true', 'UDS may not include ports'),
  /** On a WorkloadEntry address. */
  udsAbsolute: cel(
    'self.startsWith("unix://") ? (self.substring(7, 8) == "/" || self.substring(7, 8) == "@") : true',
    'UDS must be an absolute path or abstract socket',
  ),
  udsNotDir: cel('self.startsWith("unix://") ? !self.endsWith("/") : true', 'UDS may not be a dir'),

  /** On WorkloadGroup `probe.httpGet.scheme`. */
  probeScheme: cel('self in ["", "HTTP", "HTTPS"]', 'scheme must be one of [HTTP, HTTPS]'),

  /** On a ServerTLSSettings (Gateway server, Sidecar ingress). */
  credentialNamesOrTlsCertificates: cel(
    '(has(self.tlsCertificates) ? 1 : 0) + (has(self.credentialNames) ? 1 : 0) <= 1',
    'only one of credentialNames or tlsCertificates can be set',
  ),
  credentialNameOrCredentialNames: cel(
    '(has(self.credentialName) ? 1 : 0) + (has(self.credentialNames) ? 1 : 0) <= 1',
    'only one of credentialName or credentialNames can be set',
  ),
  // NOTE: Istio's rule counts credentialNames (not credentialName) under this message; kept as Istio has it.
  credentialNameOrTlsCertificates: cel(
    '(has(self.credentialNames) ? 1 : 0) + (has(self.tlsCertificates) ? 1 : 0) <= 1',
    'only one of credentialName or tlsCertificates can be set',
  ),

  /** On an EnvoyFilter patch `match`. */
  waypointMatchContext: cel(
    'has(self.context) ? ((self.context == "WAYPOINT") ? has(self.waypoint) : !has(self.waypoint)) : !has(self.waypoint)',
    'only support waypointMatch when context is WAYPOINT',
  ),

  /** On an AuthorizationPolicy `source`. */
  serviceAccountsExclusive: cel(
    '(has(self.serviceAccounts) || has(self.notServiceAccounts)) ? (!has(self.principals) &&\n!has(self.notPrincipals) && !has(self.namespaces) && !has(self.notNamespaces)) : true',
    'Cannot set serviceAccounts with namespaces or principals',
  ),
  /** On the spec of a PeerAuthentication. */
  portLevelMtlsSelector: cel(
    'has(self.portLevelMtls) ? (((has(self.selector) && has(self.selector.matchLabels)) ? self.selector.matchLabels : {}).size() > 0) : true',
    'portLevelMtls requires selector',
  ),
  /** On PeerAuthentication `portLevelMtls`. */
  portLevelMtlsPorts: cel('self.all(key, 0 < int(key) && int(key) <= 65535)', 'port must be between 1-65535'),
  /** On a RequestAuthentication JWTRule. */
  jwksExclusive: cel(
    '(has(self.jwksUri) ? 1 : 0) + (has(self.jwks_uri) ? 1 : 0) + (has(self.jwks) ? 1 : 0) <= 1',
    'only one of jwks or jwksUri can be set',
  ),
  /** On a JWTRule `jwksUri` / `jwks_uri`. */
  jwksUriScheme: cel('url(self).getScheme() in ["http", "https"]', 'url must have scheme http:// or https://'),

  /** On a Telemetry tag override. */
  tagOverrideUpsert: cel(
    '((has(self.operation) ? self.operation : "") == "UPSERT") ? (self.value != "") : true',
    'value must be set when operation is UPSERT',
  ),
  tagOverrideRemove: cel(
    '((has(self.operation) ? self.operation : "") == "REMOVE") ? !has(self.value) : true',
    'value must not be set when operation is REMOVE',
  ),

  /** On WasmPlugin `url`. */
  wasmUrlScheme: cel(
    'isURL(self) ? (url(self).getScheme() in ["", "http", "https", "oci", "file"]) : (isURL("http://" + self) &&\nurl("http://" + self).getScheme() in ["", "http", "https", "oci", "file"])',
    'url must have schema one of [http, https, file, oci]',
  ),
  /** On a WasmPlugin VM env entry. */
  wasmEnvValue: cel('(has(self.valueFrom) ? self.valueFrom : "") != "HOST" || !has(self.value)', 'value may only be set when valueFrom is INLINE'),
} as const satisfies Record<string, CelRule>;

/** A protobuf Duration with Istio's rule: at least 1ms. */
export function celDuration(): StringNode {
  return withRules(duration(), CEL.duration);
}
