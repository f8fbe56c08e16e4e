/**
 * Settings of `operator server` that come from its surroundings: the namespaces it watches and the
 * namespace it runs in (where its Lease lives).
 */
import { existsSync, readFileSync } from 'node:fs';

/** The default namespace of the operator (`meshctl operator init --operatorNamespace`). */
export const DEFAULT_OPERATOR_NAMESPACE = 'mesh-operator';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * The namespaces of `MESH_WATCH_NAMESPACE`. NOTE: meshd takes one namespace there; the operator takes a
 * comma-separated list, as Istio's operator took its WATCH_NAMESPACE (which `meshctl operator init
 * --watchedNamespaces` fills). Unset or empty: every namespace.
 * @throws Error naming the variable and the bad entry
 */
export function parseWatchNamespaces(value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return [];
  const out: string[] = [];
  for (const raw of value.split(',')) {
    const ns = raw.trim();
    if (!DNS_LABEL.test(ns)) throw new Error(`MESH_WATCH_NAMESPACE=${JSON.stringify(value)}: ${JSON.stringify(ns)} is not a namespace name (a DNS-1123 label; separate several with commas)`);
    if (!out.includes(ns)) out.push(ns);
  }
  return out;
}

/** Where the pod's service-account namespace is mounted. */
export const SERVICE_ACCOUNT_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/**
 * The namespace the operator runs in: in a pod the service account's namespace, else the kubeconfig
 * context's namespace, else {@link DEFAULT_OPERATOR_NAMESPACE} (as Istio's operator defaulted its
 * LEADER_ELECTION_NAMESPACE to `istio-operator`).
 */
export function operatorNamespaceOf(contextNamespace: string | undefined, namespaceFile = SERVICE_ACCOUNT_NAMESPACE_FILE): string {
  if (existsSync(namespaceFile)) {
    const ns = readFileSync(namespaceFile, 'utf8').trim();
    if (ns !== '') return ns;
  }
  return contextNamespace || DEFAULT_OPERATOR_NAMESPACE;
}
