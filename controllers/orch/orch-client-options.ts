import { existsSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { delimiter } from 'node:path';
import { KubeconfigError, OrchKubeConfig } from './kubeconfig.js';

/** The values `MESH_ORCH_CLIENT_CONTENT_TYPE` accepts. */
export const ORCH_CONTENT_TYPES = ['protobuf', 'json'] as const;
/** A content type for orchestrator clients. */
export type OrchContentType = (typeof ORCH_CONTENT_TYPES)[number];

/** Where the orchestrator client finds its cluster, read once by the program and passed down. */
export interface OrchConfigSource {
  /** `--orchconfig`: a kubeconfig path; `''` when unset. */
  readonly orchconfig: string;
  /** The `KUBECONFIG` value (paths joined by `:`), when set. */
  readonly kubeconfigEnv?: string | undefined;
  /** `~/.kube/config` or similar, used when it exists and nothing above is set. */
  readonly defaultKubeconfig?: string | undefined;
  /** In-cluster settings (`KUBERNETES_SERVICE_HOST`/`_PORT` and the service-account files), when running in a pod. */
  readonly inCluster?: InClusterSource | undefined;
  /** A kubeconfig context to use instead of the current one. */
  readonly context?: string | undefined;
}

/** The in-cluster service endpoint and credentials of a pod. */
export interface InClusterSource {
  readonly serviceHost: string;
  readonly servicePort: string;
  /** Default `/var/run/secrets/kubernetes.io/serviceaccount/token`. */
  readonly tokenFile?: string;
  /** Default `/var/run/secrets/kubernetes.io/serviceaccount/ca.crt`. */
  readonly caFile?: string;
}

/** Typed options of an orchestrator client. */
export interface OrchClientOptions {
  /** `--orchApiQPS`: steady requests per second; default 80. */
  readonly qps: number;
  /** `--orchApiBurst`: requests allowed at once above the steady rate; default 160. */
  readonly burst: number;
  /** `MESH_ORCH_CLIENT_CONTENT_TYPE`; only `json` is implemented. */
  readonly contentType: string;
  /** A `User-Agent` header; default `mesh`. */
  readonly userAgent?: string;
}

/** The defaults of the spec's flags (`--orchApiQPS 80`, `--orchApiBurst 160`). */
export const DEFAULT_ORCH_CLIENT_OPTIONS = { qps: 80, burst: 160, contentType: 'json' } as const satisfies OrchClientOptions;

/** A bad orchestrator client setting; the message names the flag or variable and what to do. */
export class OrchConfigError extends Error {
  override readonly name = 'OrchConfigError';
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * Builds the KubeConfig from the first source that is set: `--orchconfig`, then `KUBECONFIG` (every
 * listed file, merged; the first file's current context wins), then the default kubeconfig when it exists,
 * then in-cluster. Reads no environment variable itself.
 * @throws OrchConfigError when no source is set, a file cannot be loaded or the context does not exist
 */
export function loadOrchKubeConfig(source: OrchConfigSource): OrchKubeConfig {
  let kc: OrchKubeConfig;
  if (source.orchconfig !== '') {
    kc = loadFiles([source.orchconfig], '--orchconfig');
  } else if (source.kubeconfigEnv) {
    kc = loadFiles(source.kubeconfigEnv.split(delimiter).filter((p) => p !== ''), 'KUBECONFIG');
  } else if (source.defaultKubeconfig && existsSync(source.defaultKubeconfig)) {
    kc = loadFiles([source.defaultKubeconfig], source.defaultKubeconfig);
  } else if (source.inCluster) {
    kc = loadInCluster(source.inCluster);
  } else {
    throw new OrchConfigError(
      'no orchestrator configuration: pass --orchconfig, set KUBECONFIG, or run in a pod with KUBERNETES_SERVICE_HOST set',
    );
  }
  if (source.context) {
    if (!kc.getContextObject(source.context)) {
      throw new OrchConfigError(`kubeconfig context ${JSON.stringify(source.context)} does not exist`);
    }
    kc.setCurrentContext(source.context);
  }
  if (!kc.getCurrentCluster()) {
    throw new OrchConfigError('the kubeconfig has no current context with a cluster: set current-context or pass a context');
  }
  return kc;
}

/** Every file merged: the first file's entries and current context win (as kubectl merges KUBECONFIG). */
function loadFiles(paths: readonly string[], origin: string): OrchKubeConfig {
  if (paths.length === 0) throw new OrchConfigError(`${origin} names no file`);
  let kc: OrchKubeConfig | undefined;
  for (const path of paths) {
    let one: OrchKubeConfig;
    try {
      one = OrchKubeConfig.fromFile(path);
    } catch (err) {
      if (!(err instanceof KubeconfigError)) throw err;
      throw new OrchConfigError(`${origin}: cannot load kubeconfig ${path}: ${err.message}`);
    }
    if (kc) kc.mergeMissing(one);
    else kc = one;
  }
  return kc!;
}

function loadInCluster(source: InClusterSource): OrchKubeConfig {
  const port = Number(source.servicePort);
  if (!source.serviceHost || !Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new OrchConfigError(
      `in-cluster configuration needs KUBERNETES_SERVICE_HOST and a port in KUBERNETES_SERVICE_PORT, got ${JSON.stringify(source.serviceHost)}:${JSON.stringify(source.servicePort)}`,
    );
  }
  const host = isIPv6(source.serviceHost) ? `[${source.serviceHost}]` : source.serviceHost;
  return OrchKubeConfig.inCluster(`https://${host}:${port}`, source.caFile ?? `${SA_DIR}/ca.crt`, source.tokenFile ?? `${SA_DIR}/token`);
}

/**
 * Checks client options.
 * @throws OrchConfigError naming `--orchApiQPS`, `--orchApiBurst` or `MESH_ORCH_CLIENT_CONTENT_TYPE`
 */
export function validateOrchClientOptions(options: OrchClientOptions): OrchClientOptions {
  if (!(options.qps > 0) || !Number.isFinite(options.qps)) {
    throw new OrchConfigError(`--orchApiQPS ${options.qps}: must be a number greater than 0`);
  }
  if (!Number.isInteger(options.burst) || options.burst < 1) {
    throw new OrchConfigError(`--orchApiBurst ${options.burst}: must be an integer of at least 1`);
  }
  if (!(ORCH_CONTENT_TYPES as readonly string[]).includes(options.contentType)) {
    throw new OrchConfigError(
      `MESH_ORCH_CLIENT_CONTENT_TYPE=${JSON.stringify(options.contentType)}: not a content type (use ${ORCH_CONTENT_TYPES.join(' or ')})`,
    );
  }
  if (options.contentType === 'protobuf') {
    throw new OrchConfigError(
      'MESH_ORCH_CLIENT_CONTENT_TYPE=protobuf: not implemented yet: protobuf encoding for orchestrator clients (set MESH_ORCH_CLIENT_CONTENT_TYPE=json)',
    );
  }
  return options;
}
