// Authenticates callers by the mTLS client certificate of an existing workload identity issued by this CA.
import { X509Certificate } from 'node:crypto';
import type { MeshCa } from '../authority/mesh-ca.js';
import { readCertificateInfo } from '../pki/certificate-info.js';
import { AuthenticationError, parseSpiffeIdentity, type Authenticator, type CallCredentials, type Caller } from './authenticator.js';

/**
 * Accepts a peer certificate that is valid now, not a CA, signed by the CA's signing certificate or by one
 * of its trusted roots (so certificates from a root being rotated out still count), and carries SPIFFE URI
 * SANs of the CA's trust domain. NOTE: the TLS server must request client certificates without requiring
 * them (`createCaServerCredentials` does). grpc-js shows the peer certificate only when TLS verified it
 * against the server's trust bundle, so an unverified certificate arrives as none; the bundle must follow
 * root rotation (`StaticCertificateProvider.update`). This class checks issuer, time and SANs again.
 */
export class ClientCertificateAuthenticator implements Authenticator {
  readonly name = 'client-certificate';
  readonly absentReason = 'no client certificate verified by TLS against the trust bundle';

  constructor(
    readonly ca: MeshCa,
    readonly trustDomain: string,
  ) {}

  authenticate(credentials: CallCredentials): Promise<Caller | undefined> {
    if (!credentials.peerCertificate || credentials.peerCertificate.length === 0) return Promise.resolve(undefined);
    return Promise.resolve(this.#verify(credentials.peerCertificate));
  }

  #verify(der: Buffer): Caller {
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(der);
    } catch (err) {
      throw new AuthenticationError(`client-certificate: not a valid certificate (${(err as Error).message})`);
    }
    const now = this.ca.clock.date();
    if (new Date(cert.validFrom) > now || new Date(cert.validTo) <= now) {
      throw new AuthenticationError(`client-certificate: not valid at ${now.toISOString()} (valid ${cert.validFrom} to ${cert.validTo})`);
    }
    if (cert.ca) throw new AuthenticationError('client-certificate: is a CA certificate, not a workload certificate');
    const authority = this.ca.authority;
    const issuers = [authority.signingCert, ...authority.trustedRoots];
    if (!issuers.some((issuer) => cert.issuer === issuer.subject && cert.verify(issuer.publicKey))) {
      throw new AuthenticationError('client-certificate: not issued by this CA');
    }
    const uris = readCertificateInfo(der).subjectAltNames.uris;
    const identities = uris.filter((u) => parseSpiffeIdentity(u)?.trustDomain === this.trustDomain);
    if (identities.length === 0) {
      throw new AuthenticationError(`client-certificate: no SPIFFE identity of trust domain ${this.trustDomain} in its SANs`);
    }
    const first = parseSpiffeIdentity(identities[0]!)!;
    return {
      authenticatedBy: this.name,
      identities,
      kubernetes: { namespace: first.namespace, serviceAccount: first.serviceAccount, nodeName: undefined },
    };
  }
}
