// Node authorization: trusted node accounts (CA_TRUSTED_NODE_ACCOUNTS) may obtain certificates for
// identities whose pods run on their own node.

/** A service account written `namespace/name`. */
export interface ServiceAccountRef {
  readonly namespace: string;
  readonly serviceAccount: string;
}

/**
 * Answers whether a pod running `identity` (namespace + service account) is scheduled on `nodeName`.
 * The real implementation (a pod informer indexed by node) comes with the Kubernetes issue; tests use
 * `ca/testing/fake-node-lookup.ts`.
 */
export interface NodeLookup {
  hasPodOnNode(nodeName: string, identity: ServiceAccountRef): Promise<boolean>;
}

/** Thrown for a malformed CA_TRUSTED_NODE_ACCOUNTS entry. */
export class TrustedNodeAccountsError extends Error {
  override readonly name = 'TrustedNodeAccountsError';
}

/** Parses CA_TRUSTED_NODE_ACCOUNTS (`ns/sa,ns2/sa2`; blanks ignored); a bad entry throws naming it. */
export function parseTrustedNodeAccounts(text: string | undefined): ServiceAccountRef[] {
  if (!text) return [];
  return text.split(',').map((s) => s.trim()).filter((s) => s.length > 0).map((entry) => {
    const parts = entry.split('/');
    if (parts.length !== 2 || !parts[0] || !parts[1]) {
      throw new TrustedNodeAccountsError(`CA_TRUSTED_NODE_ACCOUNTS: "${entry}" is not <namespace>/<serviceaccount>`);
    }
    return { namespace: parts[0], serviceAccount: parts[1] };
  });
}
