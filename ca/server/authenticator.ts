// Who is calling: the seam between the certificate service and its ways of authenticating callers.
import type * as grpc from '@grpc/grpc-js';

/** What an authenticator may look at: request metadata and the TLS peer's certificate, if it sent one. */
export interface CallCredentials {
  readonly metadata: grpc.Metadata;
  /** DER of the mTLS peer's leaf certificate; undefined when the client sent none. */
  readonly peerCertificate: Buffer | undefined;
}

/** Kubernetes facts about a token-authenticated caller. */
export interface KubernetesCaller {
  readonly namespace: string;
  readonly serviceAccount: string;
  /** From the token's `kubernetes.io.node.name` claim (bound tokens); used for node authorization. */
  readonly nodeName: string | undefined;
}

/** An authenticated caller. */
export interface Caller {
  readonly authenticatedBy: string;
  /** SPIFFE identities the caller holds, e.g. `spiffe://cluster.local/ns/default/sa/sleep`. */
  readonly identities: readonly string[];
  readonly kubernetes: KubernetesCaller | undefined;
}

/** A credential was presented but is not acceptable; the message says which check failed. */
export class AuthenticationError extends Error {
  override readonly name = 'AuthenticationError';
}

/**
 * One way to authenticate. Resolves to the caller, to undefined when the call carries no credential of this
 * kind, or rejects with `AuthenticationError` naming the failed check. The service tries authenticators in
 * order; the first caller wins.
 */
export interface Authenticator {
  /** Short name used in refusal messages, e.g. `token`, `client-certificate`. */
  readonly name: string;
  /** Said in refusals when the call carries no credential of this kind, e.g. `no bearer token`. */
  readonly absentReason: string;
  authenticate(credentials: CallCredentials): Promise<Caller | undefined>;
}

/** Builds the SPIFFE identity of a Kubernetes service account. */
export function spiffeIdentity(trustDomain: string, namespace: string, serviceAccount: string): string {
  return `spiffe://${trustDomain}/ns/${namespace}/sa/${serviceAccount}`;
}

/** Parses `spiffe://<td>/ns/<ns>/sa/<sa>`; undefined when the URI has another shape. */
export function parseSpiffeIdentity(uri: string): { trustDomain: string; namespace: string; serviceAccount: string } | undefined {
  const m = /^spiffe:\/\/([^/]+)\/ns\/([^/]+)\/sa\/([^/]+)$/.exec(uri);
  return m ? { trustDomain: m[1]!, namespace: m[2]!, serviceAccount: m[3]! } : undefined;
}
