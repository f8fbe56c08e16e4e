/**
 * The fuzz surface of the CA: certificate requests (CSRs: valid ones for several key types and SANs,
 * with bit flips, truncations, wrong PEM labels and garbage; tokens: valid ones of a TokenReview and of an
 * OIDC issuer, re-signed with hostile claims, `alg: none`, HS256, unknown kids, garbage segments; client
 * certificates: garbage DER; hostile validity durations and impersonated identities) fed to the real
 * `CertificateService` with its three authenticators, an in-memory self-signed CA and a real local OIDC
 * issuer on 127.0.0.1:0. Each request is issued or refused with a `CaRefusal` naming the failed check;
 * any other error, or an INTERNAL refusal, is a crash. Shaped as hack/fuzz's `FuzzSurface`.
 */
import { generateKeyPairSync, X509Certificate, type KeyObject } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { MemoryCaKeyStore } from '../authority/ca-key-store.js';
import { createMeshCa } from '../authority/create-mesh-ca.js';
import { createCsrPem, decodeCsrPem } from '../pki/csr.js';
import { CaRefusal } from '../server/ca-refusal.js';
import { CertificateService, IMPERSONATED_IDENTITY } from '../server/certificate-service.js';
import { ClientCertificateAuthenticator } from '../server/client-certificate-authenticator.js';
import { JwksResolver } from '../server/oidc/jwks-resolver.js';
import { OidcTokenAuthenticator } from '../server/oidc/oidc-token-authenticator.js';
import { TokenAuthenticator } from '../server/token-authenticator.js';
import { FakeNodeLookup } from './fake-node-lookup.js';
import { FakeTokenReviewer } from './fake-token-reviewer.js';
import { createTestCaMetrics } from './test-ca-metrics.js';
import { startTestOidcIssuer } from './test-oidc-issuer.js';

/** One certificate request with its call credentials. */
export interface CaFuzzInput {
  readonly csr: string;
  readonly token: string | undefined;
  /** The authorization header's scheme (`Bearer` normally). */
  readonly scheme: string;
  readonly peerCertificate: Uint8Array | undefined;
  readonly validitySeconds: number;
  readonly impersonate: string | undefined;
}

/** The running surface. */
export interface CaFuzzSurface {
  readonly name: string;
  readonly arbitrary: fc.Arbitrary<CaFuzzInput>;
  /** Resolves with `accepted` or the refusal's reason; rejects with `property: ...` on a crash or unclear refusal. */
  check(input: CaFuzzInput): Promise<string>;
  /** A good request (valid CSR and token) is still issued. */
  healthy(): Promise<void>;
  close(): Promise<void>;
}

const TD = 'cluster.local';
const HOUR = 3600_000;
const SLEEP_ID = `spiffe://${TD}/ns/default/sa/sleep`;
const UNCLEAR = /Cannot read propert|is not a function|is not iterable|Maximum call stack|\[object Object\]|\bNaN\b|\bundefined\b/;

function reasonOf(e: CaRefusal): string {
  return `${e.code}: ${e.message.replace(/"(?:[^"\\]|\\.)*"/g, '"…"').replace(/\d+/g, 'N').slice(0, 70)}`;
}

/** Starts the CA, the OIDC issuer and the service. */
export async function startCaFuzzSurface(): Promise<CaFuzzSurface> {
  const { ca } = await createMeshCa(
    {
      trustDomain: TD,
      rootCaDir: '/nonexistent/mesh-ca-fuzz',
      selfSigned: { rootTtlMs: 10 * 8760 * HOUR, rsaKeySize: 2048, checkIntervalMs: 0, enableJitter: false, gracePeriodPercentile: 20, useCacertsSecret: false },
      workload: { defaultTtlMs: 24 * HOUR, maxTtlMs: 48 * HOUR },
    },
    { selfSignedStore: new MemoryCaKeyStore() },
  );
  const issuer = await startTestOidcIssuer({ tls: false });
  const key = issuer.newKey('ES256', 'k1');
  issuer.published.push(key);
  const metrics = createTestCaMetrics();
  const reviewer = new FakeTokenReviewer();
  const resolver = new JwksResolver({ issuer: issuer.issuer, refreshIntervalMs: 0, insecureSkipVerify: true, minRefetchIntervalMs: 60_000 }, { metrics });
  const service = new CertificateService(
    { trustDomain: TD, trustedNodeAccounts: [{ namespace: 'mesh-system', serviceAccount: 'ztunnel' }] },
    {
      ca,
      authenticators: [
        new TokenAuthenticator({ trustDomain: TD, audiences: ['mesh-ca'], require3pToken: true, jwtPolicy: 'third-party-jwt' }, reviewer),
        new OidcTokenAuthenticator({ trustDomain: TD, issuer: issuer.issuer, audiences: ['mesh-ca'] }, resolver),
        new ClientCertificateAuthenticator(ca, TD),
      ],
      nodeLookup: new FakeNodeLookup().addPod('node-a', 'default', 'sleep'),
      metrics,
    },
  );

  const keys: KeyObject[] = [
    generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey,
    generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey,
    generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
    generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey,
  ];
  const sanSets: { uris: string[]; dns?: string[]; organization?: string }[] = [
    { uris: [SLEEP_ID] },
    { uris: [`spiffe://${TD}/ns/other/sa/x`] },
    { uris: [SLEEP_ID, SLEEP_ID] },
    { uris: [SLEEP_ID], dns: ['evil.example.com'] },
    { uris: [] },
    { uris: ['spiffe://other.domain/ns/default/sa/sleep'] },
    { uris: ['not a uri'] },
    { uris: [SLEEP_ID], organization: 'O' },
  ];
  const csrs = keys.flatMap((k) => sanSets.map((s) => createCsrPem(k, s)));
  const goodCsr = csrs[0]!;
  const nowS = (): number => Math.floor(Date.now() / 1000);
  const goodClaims = (): Record<string, unknown> => ({
    iss: issuer.issuer,
    aud: ['mesh-ca'],
    exp: nowS() + 3600,
    iat: nowS(),
    sub: 'system:serviceaccount:default:sleep',
    'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'sleep', uid: 'u-1' }, node: { name: 'node-a' } },
  });
  const goodToken = reviewer.issue({ namespace: 'default', serviceAccount: 'sleep', audiences: ['mesh-ca'], exp: nowS() + 10 * 24 * 3600 });
  // NOTE: a real client certificate of the mesh, for the client-certificate authenticator's happy path and its mutations.
  const leaf = new X509Certificate((await ca.signWorkload(decodeCsrPem(goodCsr), [SLEEP_ID], HOUR))[0]!).raw;

  const str = fc.string({ unit: 'binary', maxLength: 40 });
  // NOTE: gRPC metadata carries printable ASCII only (a client cannot send anything else).
  const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
  const flip = (text: string): fc.Arbitrary<string> =>
    fc.tuple(fc.nat(), fc.constantFrom('A', '/', '+', '=', '-', '\n', '', '!')).map(([at, c]) => {
      const i = at % text.length;
      return text.slice(0, i) + c + text.slice(i + 1);
    });
  const csr = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...csrs) },
    { weight: 4, arbitrary: fc.constantFrom(...csrs).chain(flip) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...csrs), fc.nat()).map(([c, n]) => c.slice(0, n % c.length)) },
    { weight: 1, arbitrary: fc.constantFrom(...csrs).map((c) => c.replaceAll('CERTIFICATE REQUEST', 'CERTIFICATE')) },
    { weight: 1, arbitrary: fc.constantFrom(...csrs).map((c) => c + c) },
    { weight: 1, arbitrary: fc.oneof(str, fc.constantFrom('', '-----BEGIN CERTIFICATE REQUEST-----\n-----END CERTIFICATE REQUEST-----\n', 'x'.repeat(70_000))) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => `-----BEGIN CERTIFICATE REQUEST-----\n${Buffer.from(b).toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`) },
  );
  const claimValue = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(null, '', -1, 1e308, [], {}));
  const claims = fc.tuple(fc.array(fc.tuple(fc.constantFrom('iss', 'aud', 'exp', 'nbf', 'iat', 'sub', 'kubernetes.io'), claimValue), { maxLength: 3 }), fc.boolean()).map(([edits, drop]) => {
    const c = goodClaims();
    for (const [k, v] of edits) {
      if (drop) delete c[k];
      else c[k] = v;
    }
    return c;
  });
  const segment = fc.oneof(str.map((s) => Buffer.from(s).toString('base64url')), fc.jsonValue({ maxDepth: 2 }).map((v) => Buffer.from(JSON.stringify(v) ?? 'null').toString('base64url')), fc.constant(''));
  const token = fc.oneof(
    { weight: 2, arbitrary: fc.constant(goodToken) },
    { weight: 3, arbitrary: claims.map((c) => issuer.sign(c, key)) },
    { weight: 1, arbitrary: fc.tuple(claims, fc.dictionary(fc.constantFrom('alg', 'kid', 'typ', 'crit', 'jku'), claimValue)).map(([c, h]) => issuer.sign(c, key, h)) },
    { weight: 1, arbitrary: fc.tuple(claims, fc.option(printable, { nil: undefined })).map(([c, s]) => issuer.signUnsafe(c, s)) },
    { weight: 1, arbitrary: fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => s.join('.')) },
    { weight: 1, arbitrary: flip(goodToken) },
    { weight: 1, arbitrary: fc.oneof(printable, fc.constant('t'.repeat(100_000))) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  const peer = fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constant(leaf) },
    { weight: 2, arbitrary: fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([at, b]) => {
      const copy = Uint8Array.from(leaf);
      copy[at % copy.length] = b;
      return copy;
    }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }) },
  );
  const arbitrary: fc.Arbitrary<CaFuzzInput> = fc.record({
    csr,
    token,
    scheme: fc.oneof({ weight: 8, arbitrary: fc.constant('Bearer') }, { weight: 1, arbitrary: fc.constantFrom('bearer', 'Basic', '', 'Bearer ') }),
    peerCertificate: peer,
    validitySeconds: fc.oneof(fc.constantFrom(0, 3600, -1, 2 ** 31, 1e12, Number.MAX_SAFE_INTEGER), fc.integer()),
    impersonate: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.oneof(fc.constantFrom(SLEEP_ID, '', 'spiffe://x'), str) }),
  });

  const check = async (input: CaFuzzInput): Promise<string> => {
    const metadata = new grpc.Metadata();
    // NOTE: a gRPC header value is trimmed printable ASCII; other characters cannot be sent, so they become "?".
    if (input.token !== undefined) metadata.set('authorization', `${input.scheme} ${input.token}`.replace(/[^\x20-\x7e]/g, '?').trim() || 'Bearer');
    try {
      const chain = await service.createCertificate(
        { csr: input.csr, validity_duration: input.validitySeconds, ...(input.impersonate !== undefined ? { metadata: { fields: { [IMPERSONATED_IDENTITY]: { stringValue: input.impersonate } } } } : {}) },
        { metadata, peerCertificate: input.peerCertificate ? Buffer.from(input.peerCertificate) : undefined },
      );
      if (!Array.isArray(chain) || chain.length < 2 || !chain.every((c) => c.startsWith('-----BEGIN CERTIFICATE-----'))) throw new Error(`property: issued a malformed chain: ${JSON.stringify(chain).slice(0, 200)}`);
      return 'accepted';
    } catch (e) {
      if (!(e instanceof CaRefusal)) throw new Error(`property: crash (${(e as Error).name}): ${(e as Error).message}`, { cause: e });
      if (e.code === 'INTERNAL') throw new Error(`property: INTERNAL refusal: ${e.message}`);
      if (e.message.trim().length < 6 || e.message.includes('\n') || UNCLEAR.test(e.message)) throw new Error(`property: unclear refusal ${e.code}: ${JSON.stringify(e.message.slice(0, 300))}`);
      return reasonOf(e);
    }
  };

  return {
    name: 'ca',
    arbitrary,
    check,
    healthy: async () => {
      const r = await check({ csr: goodCsr, token: goodToken, scheme: 'Bearer', peerCertificate: undefined, validitySeconds: 3600, impersonate: undefined });
      if (r !== 'accepted') throw new Error(`property: a good request was refused after the run: ${r}`);
    },
    close: async () => {
      resolver.close();
      service.close();
      await issuer.close();
    },
  };
}
