/**
 * meshd's real CA for agent tests: a self-signed MeshCa, the certificate service with token
 * authentication, served over gRPC/TLS on 127.0.0.1:0. Tokens are registered with `token(ns, sa)`;
 * the reviewer stands in for the API server's TokenReview (the e2e tests use the real one).
 */
import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import {
  CertificateService, createCaServerCredentials, createMeshCa, MemoryCaKeyStore, ServingCertificateManager, TokenAuthenticator,
  type CaMetrics, type MeshCa, type TokenReviewResult, type TokenReviewer,
} from '../../ca/index.js';
import { closeGrpcServer } from '../../core/index.js';
import { decode, encode } from '../xds-protos.js';
import { ADS_STREAM_METHOD } from '../xds-proxy/xds-proxy.js';

/** What the scripted ADS service saw: one entry per stream. */
export interface AdsStreamRecord {
  readonly authorization: string | undefined;
  nodeId: string | undefined;
  readonly requests: { typeUrl: string; nonce: string }[];
}

/** A running test CA (and, like meshd's 15012, a scripted ADS service on the same port). */
export interface TestMeshCa {
  /** ADS streams seen, in order. */
  readonly adsStreams: AdsStreamRecord[];
  readonly ca: MeshCa;
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  readonly serverName: string;
  readonly rootCertPem: string;
  /** A token the CA accepts for `ns`/`sa` (audience `mesh-ca`). */
  token(namespace: string, serviceAccount: string): string;
  close(): Promise<void>;
}

class TableTokenReviewer implements TokenReviewer {
  readonly tokens = new Map<string, string>();
  review(token: string): Promise<TokenReviewResult> {
    const user = this.tokens.get(token);
    return Promise.resolve(user ? { authenticated: true, username: user, audiences: ['mesh-ca'] } : { authenticated: false, error: 'invalid bearer token' });
  }
}

const noMetrics: CaMetrics = { counter: () => ({ inc: () => undefined }), gauge: () => ({ set: () => undefined }) };

const id = (b: Buffer): Buffer => b;
const ADS_SERVICE: grpc.ServiceDefinition = {
  StreamAggregatedResources: { path: ADS_STREAM_METHOD, requestStream: true, responseStream: true, requestSerialize: id, requestDeserialize: id, responseSerialize: id, responseDeserialize: id },
};
const CLUSTER = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';
const LISTENER = 'type.googleapis.com/envoy.config.listener.v3.Listener';
const RESOURCES: Record<string, Record<string, unknown>> = {
  [CLUSTER]: { name: 'outbound|80||reviews.default.svc.cluster.local', type: 'EDS', edsClusterConfig: { edsConfig: { ads: {} } } },
  [LISTENER]: { name: 'virtualOutbound', address: { socketAddress: { address: '0.0.0.0', portValue: 15001 } } },
};

/** Answers each first request of a type (no response nonce) with one resource of it; ACKs get nothing. */
function scriptedAds(call: grpc.ServerDuplexStream<Buffer, Buffer>, streams: AdsStreamRecord[]): void {
  const auth = call.metadata.get('authorization')[0];
  const record: AdsStreamRecord = { authorization: typeof auth === 'string' ? auth : undefined, nodeId: undefined, requests: [] };
  streams.push(record);
  let nonce = 0;
  call.on('data', (b: Buffer) => {
    const req = decode('envoy.service.discovery.v3.DiscoveryRequest', b) as { typeUrl?: string; responseNonce?: string; node?: { id?: string } };
    record.nodeId ??= req.node?.id;
    record.requests.push({ typeUrl: req.typeUrl ?? '', nonce: req.responseNonce ?? '' });
    const resource = RESOURCES[req.typeUrl ?? ''];
    if (req.responseNonce || !resource) return;
    const typeName = req.typeUrl!.slice(req.typeUrl!.lastIndexOf('/') + 1);
    const response = { versionInfo: '1', typeUrl: req.typeUrl, nonce: String(++nonce), resources: [{ type_url: req.typeUrl, value: encode(typeName, resource) }] };
    call.write(Buffer.from(encode('envoy.service.discovery.v3.DiscoveryResponse', response)));
  });
  call.on('end', () => call.end());
  call.on('error', () => undefined);
}

/** Starts the CA (trust domain `cluster.local`, workload TTLs up to 48 h). */
export async function startTestMeshCa(): Promise<TestMeshCa> {
  const HOUR = 3600_000;
  const { ca } = await createMeshCa(
    {
      trustDomain: 'cluster.local',
      rootCaDir: '/nonexistent/mesh-ca-test',
      selfSigned: { rootTtlMs: 10 * 8760 * HOUR, rsaKeySize: 2048, checkIntervalMs: 0, enableJitter: false, gracePeriodPercentile: 20, useCacertsSecret: false },
      workload: { defaultTtlMs: 24 * HOUR, maxTtlMs: 48 * HOUR },
    },
    { selfSignedStore: new MemoryCaKeyStore() },
  );
  const reviewer = new TableTokenReviewer();
  const service = new CertificateService(
    { trustDomain: 'cluster.local', trustedNodeAccounts: [] },
    { ca, authenticators: [new TokenAuthenticator({ trustDomain: 'cluster.local', audiences: ['mesh-ca'], require3pToken: true, jwtPolicy: 'third-party-jwt' }, reviewer)], metrics: noMetrics },
  );
  const serverName = 'meshd.mesh-system.svc';
  // NOTE: `localhost` too, so an agent can dial `localhost:<port>` and verify the name as it would meshd's.
  const serving = new ServingCertificateManager(ca, { dnsNames: [serverName, 'localhost'], ttlMs: HOUR });
  const provider = await serving.start();
  const server = new grpc.Server();
  service.register(server);
  const adsStreams: AdsStreamRecord[] = [];
  server.addService(ADS_SERVICE, { StreamAggregatedResources: (call: grpc.ServerDuplexStream<Buffer, Buffer>) => scriptedAds(call, adsStreams) });
  const port = await new Promise<number>((res, rej) => server.bindAsync('127.0.0.1:0', createCaServerCredentials(provider), (e, p) => (e ? rej(e) : res(p))));
  return {
    adsStreams,
    ca,
    address: `127.0.0.1:${port}`,
    serverName,
    rootCertPem: ca.trustBundlePem().join(''),
    token(namespace, serviceAccount) {
      // NOTE: JWT-shaped (the authenticator reads the audience of third-party tokens); the table decides validity.
      const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
      const sub = `system:serviceaccount:${namespace}:${serviceAccount}`;
      const t = `${b64({ alg: 'RS256' })}.${b64({ sub, aud: ['mesh-ca'], exp: Math.floor(Date.now() / 1000) + 3600 })}.${randomBytes(16).toString('base64url')}`;
      reviewer.tokens.set(t, `system:serviceaccount:${namespace}:${serviceAccount}`);
      return t;
    },
    close: async () => {
      serving.stop();
      service.close();
      await closeGrpcServer(server, 2000);
    },
  };
}
