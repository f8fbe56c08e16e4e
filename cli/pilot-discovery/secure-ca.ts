/**
 * meshd's certificate authority, wired (ENABLE_CA_SERVER): plugged-in from ROOT_CA_DIR, else self-signed and
 * kept in a Secret (`cacerts` with USE_CACERTS_FOR_SELF_SIGNED_CA, else `mesh-ca-secret`) in `--namespace`
 * when the orchestrator is configured, else in memory; the root rotator; and the certificate service with
 * its authenticators (with TOKEN_ISSUER, local OIDC JWT verification; TokenReview through the API server;
 * workload client certificates) and node lookup.
 */
import type { Logger } from 'pino';
import {
  CertificateService,
  ClientCertificateAuthenticator,
  createMeshCa,
  createSelfSignedRoot,
  JwksResolver,
  KubeTokenReviewer,
  MemoryCaKeyStore,
  OidcTokenAuthenticator,
  selfSignedSecretName,
  TokenAuthenticator,
  type Authenticator,
  type CaKeyStore,
  type CaSettings,
  type MeshCa,
  type NodeLookup,
  type RootRotator,
  type ServiceAccountRef,
  type StoredCaMaterial,
} from '../../ca/index.js';
import { OrchSecretCaStore, type OrchClient } from '../../controllers/index.js';
import type { Lifecycle, Metrics } from '../../core/index.js';

/** The CA as meshd runs it. */
export interface MeshdCa {
  readonly ca: MeshCa;
  readonly rotator: RootRotator | undefined;
  readonly service: CertificateService;
  /** OIDC (TOKEN_ISSUER), token (when an orchestrator is configured), then client-certificate authenticators; xDS auth uses them too. */
  readonly authenticators: readonly Authenticator[];
  readonly settings: CaSettings;
}

/**
 * A `CaKeyStore` over the CA Secret whose `load()` never answers "absent": on first start it creates a root
 * and stores it create-if-absent, so replicas racing at first start all adopt the root that won.
 */
class SharedSecretCaStore implements CaKeyStore {
  constructor(
    readonly secret: OrchSecretCaStore,
    readonly settings: CaSettings,
    readonly logger: Logger,
  ) {}

  async load(): Promise<StoredCaMaterial | undefined> {
    const stored = await this.secret.load();
    if (stored) return stored;
    const { selfSigned, trustDomain } = this.settings.ca;
    const root = await createSelfSignedRoot({ trustDomain, ttlMs: selfSigned.rootTtlMs, rsaKeySize: selfSigned.rsaKeySize, now: new Date() });
    const fresh: StoredCaMaterial = { caCertPem: root.certPem, caKeyPem: root.keyPem, certChainPem: '', rootCertPem: root.certPem };
    const winner = await this.secret.createIfAbsent(fresh);
    this.logger.info({ store: this.describe(), created: winner === fresh }, winner === fresh ? 'created self-signed root certificate' : 'adopted the self-signed root another replica created');
    return winner;
  }

  save(material: StoredCaMaterial): Promise<void> {
    return this.secret.save(material);
  }

  describe(): string {
    return this.secret.describe();
  }
}

/** Node authorization from the API server: is a pod of this service account scheduled on the node? */
export class OrchNodeLookup implements NodeLookup {
  constructor(readonly client: OrchClient) {}

  async hasPodOnNode(nodeName: string, identity: ServiceAccountRef): Promise<boolean> {
    const pods = await this.client.request<{ items?: { spec?: { serviceAccountName?: string } }[] }>(
      'GET',
      `/api/v1/namespaces/${encodeURIComponent(identity.namespace)}/pods`,
      { query: { fieldSelector: `spec.nodeName=${nodeName}` } },
    );
    return (pods.items ?? []).some((p) => (p.spec?.serviceAccountName || 'default') === identity.serviceAccount);
  }
}

/** What the CA wiring needs from meshd. */
export interface MeshdCaDeps {
  readonly settings: CaSettings;
  /** The orchestrator client, when `--orchconfig` is given: Secret store, TokenReview, node lookup. */
  readonly orch: OrchClient | undefined;
  /** `--namespace`: where the CA Secret lives. */
  readonly namespace: string;
  readonly metrics: Metrics;
  readonly logger: Logger;
  readonly lifecycle: Lifecycle;
  /** Bearer-token authentication (see {@link tokenAuthenticatorFor}); absent without an orchestrator. */
  readonly tokenAuthenticator: TokenAuthenticator | undefined;
}

/** Token authentication through TokenReview on `orch` with TOKEN_AUDIENCES, REQUIRE_3P_TOKEN and JWT_POLICY. */
export function tokenAuthenticatorFor(settings: CaSettings, orch: OrchClient): TokenAuthenticator {
  const { server } = settings;
  return new TokenAuthenticator(
    { trustDomain: settings.ca.trustDomain, audiences: server.tokenAudiences, require3pToken: server.require3pToken, jwtPolicy: server.jwtPolicy },
    new KubeTokenReviewer(orch),
  );
}

/**
 * Local JWT verification against TOKEN_ISSUER's JWKS (PILOT_JWT_PUB_KEY_REFRESH_INTERVAL,
 * JWKS_RESOLVER_INSECURE_SKIP_VERIFY) for TOKEN_AUDIENCES; undefined without TOKEN_ISSUER. Starts the
 * resolver's refresh and registers its shutdown on `lifecycle`.
 */
export function oidcAuthenticatorFor(settings: CaSettings, deps: Pick<MeshdCaDeps, 'metrics' | 'logger' | 'lifecycle'>): OidcTokenAuthenticator | undefined {
  const oidc = settings.server.oidc;
  if (!oidc) return undefined;
  const resolver = new JwksResolver(
    { issuer: oidc.issuer, refreshIntervalMs: oidc.jwksRefreshIntervalMs, insecureSkipVerify: oidc.jwksInsecureSkipVerify },
    { metrics: deps.metrics, logger: deps.logger },
  );
  resolver.start();
  deps.lifecycle.add('ca-jwks-resolver', () => resolver.close());
  deps.logger.info({ issuer: oidc.issuer, audiences: settings.server.tokenAudiences }, 'bearer tokens are verified as JWTs of TOKEN_ISSUER');
  return new OidcTokenAuthenticator({ trustDomain: settings.ca.trustDomain, issuer: oidc.issuer, audiences: settings.server.tokenAudiences }, resolver);
}

/**
 * Builds the CA once, starts its rotator and the certificate service (not yet registered on a server);
 * registers their shutdown on `lifecycle`. Throws `CaMaterialError` / `CaSecretError` for unusable material.
 */
export async function startMeshdCa(deps: MeshdCaDeps): Promise<MeshdCa> {
  const { settings, orch, namespace, metrics, logger, lifecycle } = deps;
  let store: CaKeyStore;
  if (orch) {
    store = new SharedSecretCaStore(new OrchSecretCaStore(orch, namespace, selfSignedSecretName(settings.ca.selfSigned)), settings, logger);
  } else {
    store = new MemoryCaKeyStore();
  }
  const { ca, rotator } = await createMeshCa(settings.ca, { selfSignedStore: store, logger });
  if (ca.mode === 'self-signed' && !orch) {
    logger.warn({ store: 'memory' }, 'no orchestrator: the self-signed root is kept in memory only and is lost on restart (ephemeral)');
  }
  logger.info({ mode: ca.mode, root: ca.authority.root.fingerprint256, rootExpiry: ca.authority.root.validTo, store: ca.mode === 'self-signed' ? store.describe() : settings.ca.rootCaDir }, 'CA ready');
  if (rotator) {
    rotator.start();
    lifecycle.add('ca-root-rotator', () => rotator.stop());
  }
  const authenticators: Authenticator[] = [];
  const oidc = oidcAuthenticatorFor(settings, deps);
  if (oidc) authenticators.push(oidc);
  if (deps.tokenAuthenticator) authenticators.push(deps.tokenAuthenticator);
  authenticators.push(new ClientCertificateAuthenticator(ca, settings.ca.trustDomain));
  const service = new CertificateService(
    { trustDomain: settings.ca.trustDomain, trustedNodeAccounts: settings.server.trustedNodeAccounts },
    { ca, authenticators, nodeLookup: orch ? new OrchNodeLookup(orch) : undefined, metrics, logger },
  );
  lifecycle.add('ca-service', () => service.close());
  return { ca, rotator, service, authenticators, settings };
}
