/**
 * The agent's certificate side, wired from its options: meshd's CA (CA_ADDR, else the discovery
 * address; CA_PROVIDER `CertAuth`; TLS roots from CA_ROOT_CA, else the mounted mesh root; the projected
 * service-account token, or the PROV_CERT client certificate), the rotating secret cache, and the SDS
 * server on the workload socket. With USE_EXTERNAL_WORKLOAD_SDS the socket must already exist and the
 * agent serves nothing on it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { CaCertificateProvider, FileSecrets, SdsServer, SecretCache } from '../../agent/index.js';
import { workloadKeyOptionsFromEnv, type WorkloadKeyOptions } from '../../ca/index.js';
import type { Env, Lifecycle, Metrics } from '../../core/index.js';
import { CliError, notImplemented } from '../framework/index.js';

/** The projected service-account token (audience `mesh-ca`), relative to the working directory as in Istio. */
export const TOKEN_PATH = './var/run/secrets/tokens/mesh-token';
/** The mesh root certificate mounted from the `mesh-ca-root-cert` ConfigMap. */
export const MESH_ROOT_CERT_PATH = './var/run/secrets/mesh/root-cert.pem';

/** What the certificate side needs, read once at start. */
export interface CertificateOptions {
  readonly useExternalSds: boolean;
  readonly caAddress: string;
  readonly caRootPath: string;
  readonly identity: string;
  readonly ttlMs: number;
  readonly gracePeriodRatio: number;
  readonly key: WorkloadKeyOptions;
  /** PROV_CERT: a directory with cert-chain.pem and key.pem used to authenticate to the CA instead of a token. */
  readonly provisionedCertDir?: string;
}

/** Reads and checks the certificate variables. */
export function certificateOptionsFrom(env: Env, discoveryAddress: string, trustDomain: string, namespace: string): CertificateOptions {
  const provider = env.string('CA_PROVIDER') ?? 'CertAuth';
  if (provider !== 'CertAuth') notImplemented(`CA_PROVIDER="${provider}" (only CertAuth, meshd's CA, is built)`);
  const ratio = env.float('SECRET_GRACE_PERIOD_RATIO');
  if (!(ratio > 0 && ratio < 1)) throw new CliError(`SECRET_GRACE_PERIOD_RATIO=${ratio}: use a number between 0 and 1`);
  const ttlMs = env.duration('SECRET_TTL');
  if (ttlMs < 1000) throw new CliError(`SECRET_TTL=${ttlMs}ms: use at least 1s`);
  let key: WorkloadKeyOptions;
  try {
    key = workloadKeyOptionsFromEnv(env);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  const sa = env.string('SERVICE_ACCOUNT') || 'default';
  const prov = env.string('PROV_CERT');
  return {
    useExternalSds: env.bool('USE_EXTERNAL_WORKLOAD_SDS'),
    caAddress: env.string('CA_ADDR') || discoveryAddress,
    caRootPath: env.string('CA_ROOT_CA') || MESH_ROOT_CERT_PATH,
    identity: `spiffe://${trustDomain}/ns/${namespace}/sa/${sa}`,
    ttlMs,
    gracePeriodRatio: ratio,
    key,
    ...(prov ? { provisionedCertDir: prov } : {}),
  };
}

function readRequired(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new CliError(`${what} ${path} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** Starts the secret cache and the SDS server on `socketPath` (or checks the external one); registers their closers. */
export async function startWorkloadCertificates(
  o: CertificateOptions,
  socketPath: string,
  deps: { logger: Logger; metrics: Metrics; lifecycle: Lifecycle },
): Promise<SecretCache | undefined> {
  if (o.useExternalSds) {
    if (!existsSync(socketPath)) throw new CliError(`USE_EXTERNAL_WORKLOAD_SDS is true but there is no SDS socket at ${socketPath}`);
    deps.logger.info({ socket: socketPath }, 'using the external workload SDS');
    return undefined;
  }
  const rootCertPem = readRequired(o.caRootPath, 'the CA root certificate (CA_ROOT_CA)');
  const clientCertificate = o.provisionedCertDir
    ? { certChainPem: readRequired(join(o.provisionedCertDir, 'cert-chain.pem'), 'the provisioned certificate (PROV_CERT)'), keyPem: readRequired(join(o.provisionedCertDir, 'key.pem'), 'the provisioned key (PROV_CERT)') }
    : undefined;
  // NOTE: the token is read on every request: the kubelet rotates the projected file.
  if (!clientCertificate && !existsSync(TOKEN_PATH)) throw new CliError(`no service-account token at ${TOKEN_PATH} (and no PROV_CERT): the CA cannot authenticate this workload`);
  const host = o.caAddress.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  const provider = new CaCertificateProvider({
    client: { address: o.caAddress, rootCertPem, serverName: host, ...(clientCertificate ? { clientCertificate } : { token: () => readFileSync(TOKEN_PATH, 'utf8').trim() }) },
    identity: o.identity,
    ttlMs: o.ttlMs,
    key: o.key,
    metrics: deps.metrics,
  });
  const cache = new SecretCache({ provider, gracePeriodRatio: o.gracePeriodRatio, logger: deps.logger, metrics: deps.metrics });
  deps.lifecycle.add('secret cache', () => cache.close());
  const files = new FileSecrets({ logger: deps.logger, metrics: deps.metrics });
  deps.lifecycle.add('file secrets', () => files.close());
  const sds = await SdsServer.start(socketPath, cache, deps.logger, files);
  deps.lifecycle.add('sds server', () => sds.close());
  void cache.ready().catch(() => undefined);
  return cache;
}
