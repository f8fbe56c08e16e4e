/**
 * Authentication and identity checks of xDS streams (XDS_AUTH, XDS_AUTH_PLAINTEXT,
 * PILOT_ENABLE_XDS_IDENTITY_CHECK): who is calling (a bearer token reviewed by the API server or a
 * workload client certificate of this mesh's CA), and whether that identity may act as the node it claims.
 */
import * as grpc from '@grpc/grpc-js';
import type { Authenticator, Caller, ServiceAccountRef } from '../../ca/index.js';
import type { ProxyNode } from './contracts.js';
import type { AdsCall } from './send.js';
import { StreamError } from './stream-session.js';

/** Checks one stream; the ADS server calls it once per stream, after the first request's node is parsed. */
export interface XdsStreamAuth {
  /**
   * Resolves to the authenticated caller (undefined when authentication is off) or rejects with a
   * `StreamError`: UNAUTHENTICATED when no credential is acceptable, PERMISSION_DENIED when the caller
   * may not act as `node`.
   */
  check(call: AdsCall, node: ProxyNode): Promise<Caller | undefined>;
}

/** Settings of {@link XdsAuthenticator}. */
export interface XdsAuthOptions {
  /** Tried in order (typically the CA's token and client-certificate authenticators); the first caller wins. */
  readonly authenticators: readonly Authenticator[];
  /** PILOT_ENABLE_XDS_IDENTITY_CHECK: the node's namespace (and SERVICE_ACCOUNT, when given) must be the caller's. */
  readonly identityCheck: boolean;
  /** Accounts that may claim any namespace (CA_TRUSTED_NODE_ACCOUNTS: node agents serving several namespaces). */
  readonly trustedAccounts?: readonly ServiceAccountRef[];
}

/**
 * Authenticates xDS streams with the CA's authenticators and checks the node's claimed namespace against the
 * caller's identity (Istio's checkConnectionIdentity): some identity of the caller must be
 * `spiffe://<td>/ns/<node namespace>/sa/<node SERVICE_ACCOUNT, when set>`.
 */
export class XdsAuthenticator implements XdsStreamAuth {
  constructor(readonly options: XdsAuthOptions) {}

  async check(call: AdsCall, node: ProxyNode): Promise<Caller> {
    const caller = await this.#authenticate(call);
    if (this.options.identityCheck) this.#checkIdentity(caller, node);
    return caller;
  }

  async #authenticate(call: AdsCall): Promise<Caller> {
    const peer = call.getAuthContext()?.sslPeerCertificate;
    const credentials = { metadata: call.metadata, peerCertificate: peer?.raw };
    const failures: string[] = [];
    for (const authenticator of this.options.authenticators) {
      try {
        const caller = await authenticator.authenticate(credentials);
        if (caller) return caller;
        failures.push(`${authenticator.name}: ${authenticator.absentReason}`);
      } catch (err) {
        failures.push(err instanceof Error ? err.message : String(err));
      }
    }
    if (failures.length === 0) failures.push('no authenticator configured');
    throw new StreamError(grpc.status.UNAUTHENTICATED, `xDS authentication failed (${failures.join('; ')})`);
  }

  #checkIdentity(caller: Caller, node: ProxyNode): void {
    const k = caller.kubernetes;
    if (k && (this.options.trustedAccounts ?? []).some((a) => a.namespace === k.namespace && a.serviceAccount === k.serviceAccount)) return;
    const serviceAccount = typeof node.metadata['SERVICE_ACCOUNT'] === 'string' ? node.metadata['SERVICE_ACCOUNT'] : '';
    const matches = caller.identities.some((id) => {
      const m = /^spiffe:\/\/[^/]+\/ns\/([^/]+)\/sa\/([^/]+)$/.exec(id);
      return m !== null && m[1] === node.namespace && (serviceAccount === '' || m[2] === serviceAccount);
    });
    if (!matches) {
      throw new StreamError(grpc.status.PERMISSION_DENIED,
        `xDS identity check failed: node ${node.id} claims namespace ${node.namespace}${serviceAccount ? ` and service account ${serviceAccount}` : ''}, `
        + `but the caller is ${caller.identities.join(', ') || 'no identity'}`);
    }
  }
}
