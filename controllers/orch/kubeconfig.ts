/**
 * Kubeconfig files and in-cluster credentials, read without @kubernetes/client-node: its KubeConfig
 * loads the whole generated API (about 90 MB of RSS and half a second of start-up), which the servers
 * (meshd, the operator) do not otherwise need. The shapes of clusters, users and contexts are the
 * client's, so a meshctl command that needs the client's own KubeConfig (port-forward) converts with
 * `loadFromOptions`.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { RequestOptions } from 'node:https';
import { parse as parseYaml } from 'yaml';

/** A cluster entry (the client library's shape). */
export interface KubeCluster {
  readonly name: string;
  readonly server: string;
  readonly caData?: string;
  readonly caFile?: string;
  readonly skipTLSVerify: boolean;
  readonly tlsServerName?: string;
}

/** An exec credential plugin (client.authentication.k8s.io). */
export interface KubeExec {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: readonly { readonly name: string; readonly value: string }[];
  readonly apiVersion?: string;
}

/** A user entry (the client library's shape; `authProvider` only as in-cluster's token file). */
export interface KubeUser {
  readonly name: string;
  readonly certData?: string;
  readonly certFile?: string;
  readonly keyData?: string;
  readonly keyFile?: string;
  readonly token?: string;
  readonly tokenFile?: string;
  readonly username?: string;
  readonly password?: string;
  readonly impersonateUser?: string;
  readonly exec?: KubeExec;
  readonly authProvider?: { readonly name: string; readonly config: { readonly tokenFile: string } };
}

/** A context entry. */
export interface KubeContext {
  readonly name: string;
  readonly cluster: string;
  readonly user?: string;
  readonly namespace?: string;
}

/** What a request needs from a kubeconfig; the client library's KubeConfig has the same two methods. */
export interface OrchCredentials {
  getCurrentCluster(): { readonly name: string; readonly server: string } | null;
  applyToHTTPSOptions(opts: RequestOptions & { headers?: Record<string, string> }): Promise<void>;
}

/** A kubeconfig that cannot be read or used, naming the file and the entry. */
export class KubeconfigError extends Error {}

/** Files (tokens, certificates) are read again after this long, as client-go does for token files. */
const REREAD_MS = 60_000;

/** Clusters, users and contexts with a current context; applies the current user's credentials to requests. */
export class OrchKubeConfig implements OrchCredentials {
  clusters: KubeCluster[] = [];
  users: KubeUser[] = [];
  contexts: KubeContext[] = [];
  currentContext = '';
  readonly #files = new Map<string, { bytes: Buffer; at: number }>();
  #execCredential: { status: ExecStatus; until: number } | undefined;

  /** Reads a kubeconfig file; relative file paths in it are taken from the file's folder. */
  static fromFile(path: string): OrchKubeConfig {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new KubeconfigError(`${path}: ${(e as Error).message}`);
    }
    return OrchKubeConfig.fromYaml(text, path, dirname(path));
  }

  /** Parses kubeconfig YAML (`origin` names it in errors; `baseDir` resolves relative paths). */
  static fromYaml(text: string, origin: string, baseDir?: string): OrchKubeConfig {
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (e) {
      throw new KubeconfigError(`${origin}: not YAML: ${(e as Error).message}`);
    }
    const kc = new OrchKubeConfig();
    const root = (doc ?? {}) as Record<string, unknown>;
    const abs = (p: unknown): string | undefined => (typeof p === 'string' && p !== '' ? (baseDir && !isAbsolute(p) ? join(baseDir, p) : p) : undefined);
    kc.clusters = entries(root['clusters'], 'clusters', 'cluster', origin).map(([name, c, at]) => {
      if (typeof c['server'] !== 'string' || c['server'] === '') throw new KubeconfigError(`${origin}: ${at}.cluster.server is missing`);
      if (c['proxy-url']) throw new KubeconfigError(`${origin}: ${at}.cluster.proxy-url: not implemented yet: API server access through a proxy`);
      return dropUndefined({
        name,
        server: c['server'].replace(/\/$/, ''),
        caData: str(c['certificate-authority-data']),
        caFile: abs(c['certificate-authority']),
        skipTLSVerify: c['insecure-skip-tls-verify'] === true,
        tlsServerName: str(c['tls-server-name']),
      });
    });
    kc.users = entries(root['users'], 'users', 'user', origin, true).map(([name, u, at]) => {
      const provider = u['auth-provider'] as { name?: string } | undefined;
      if (provider) throw new KubeconfigError(`${origin}: ${at}.user.auth-provider ${JSON.stringify(provider.name ?? '')} is not supported: use an exec credential plugin (kubectl dropped auth providers in 1.26)`);
      const exec = u['exec'] as Record<string, unknown> | undefined;
      if (exec && (typeof exec['command'] !== 'string' || exec['command'] === '')) throw new KubeconfigError(`${origin}: ${at}.user.exec.command is missing`);
      return dropUndefined({
        name,
        certData: str(u['client-certificate-data']),
        certFile: abs(u['client-certificate']),
        keyData: str(u['client-key-data']),
        keyFile: abs(u['client-key']),
        token: str(u['token']),
        tokenFile: abs(u['tokenFile'] ?? u['token-file']),
        username: str(u['username']),
        password: str(u['password']),
        impersonateUser: str(u['as']),
        exec: exec ? (dropUndefined({ command: exec['command'] as string, args: exec['args'] as string[] | undefined, env: exec['env'] as KubeExec['env'], apiVersion: str(exec['apiVersion']) }) as KubeExec) : undefined,
      });
    });
    kc.contexts = entries(root['contexts'], 'contexts', 'context', origin).map(([name, c, at]) => {
      if (typeof c['cluster'] !== 'string' || c['cluster'] === '') throw new KubeconfigError(`${origin}: ${at}.context.cluster is missing`);
      return dropUndefined({ name, cluster: c['cluster'], user: str(c['user']), namespace: str(c['namespace']) });
    });
    kc.currentContext = str(root['current-context']) ?? '';
    return kc;
  }

  /** In-cluster: the API server from the service host and port, the CA and token of the pod's service account. */
  static inCluster(server: string, caFile: string, tokenFile: string): OrchKubeConfig {
    const kc = new OrchKubeConfig();
    kc.clusters = [{ name: 'in-cluster', server, caFile, skipTLSVerify: false }];
    kc.users = [{ name: 'in-cluster', tokenFile }];
    kc.contexts = [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster' }];
    kc.currentContext = 'in-cluster';
    return kc;
  }

  /** Adds the clusters, users and contexts of `other` whose names this one lacks (the first file wins, as kubectl). */
  mergeMissing(other: OrchKubeConfig): void {
    const add = <T extends { name: string }>(mine: T[], theirs: readonly T[]): void => {
      for (const x of theirs) if (!mine.some((m) => m.name === x.name)) mine.push(x);
    };
    add(this.clusters, other.clusters);
    add(this.users, other.users);
    add(this.contexts, other.contexts);
    if (!this.currentContext) this.currentContext = other.currentContext;
  }

  getContextObject(name: string): KubeContext | undefined {
    return this.contexts.find((c) => c.name === name);
  }

  getCurrentContext(): string {
    return this.currentContext;
  }

  setCurrentContext(name: string): void {
    this.currentContext = name;
  }

  getCurrentCluster(): KubeCluster | null {
    const ctx = this.getContextObject(this.currentContext);
    return (ctx && this.clusters.find((c) => c.name === ctx.cluster)) ?? null;
  }

  getCurrentUser(): KubeUser | null {
    const ctx = this.getContextObject(this.currentContext);
    return (ctx?.user !== undefined && this.users.find((u) => u.name === ctx.user)) || null;
  }

  /** Sets TLS options and the Authorization header of one request from the current cluster and user. */
  async applyToHTTPSOptions(opts: RequestOptions & { headers?: Record<string, string> }): Promise<void> {
    const cluster = this.getCurrentCluster();
    const user = this.getCurrentUser();
    const headers = (opts.headers ??= {});
    if (cluster) {
      if (cluster.skipTLSVerify) opts.rejectUnauthorized = false;
      if (cluster.tlsServerName) opts.servername = cluster.tlsServerName;
      const ca = this.#bytes(cluster.caFile, cluster.caData);
      if (ca) opts.ca = ca;
    }
    if (!user) return;
    const cert = this.#bytes(user.certFile, user.certData);
    const key = this.#bytes(user.keyFile, user.keyData);
    if (cert) opts.cert = cert;
    if (key) opts.key = key;
    if (user.impersonateUser) headers['Impersonate-User'] = user.impersonateUser;
    if (user.username !== undefined) opts.auth = `${user.username}:${user.password ?? ''}`;
    const tokenFile = user.tokenFile ?? user.authProvider?.config.tokenFile;
    if (user.token) headers['Authorization'] = `Bearer ${user.token}`;
    else if (tokenFile) headers['Authorization'] = `Bearer ${this.#bytes(tokenFile)!.toString('utf8').trim()}`;
    if (user.exec) {
      const status = await this.#exec(user.exec, user.name);
      if (status.token) headers['Authorization'] = `Bearer ${status.token}`;
      if (status.clientCertificateData) opts.cert = Buffer.from(status.clientCertificateData);
      if (status.clientKeyData) opts.key = Buffer.from(status.clientKeyData);
    }
  }

  /** A file's bytes (read again after REREAD_MS) or base64 data. */
  #bytes(file: string | undefined, data?: string): Buffer | undefined {
    if (file) {
      const now = Date.now();
      const hit = this.#files.get(file);
      if (hit && now - hit.at < REREAD_MS) return hit.bytes;
      let bytes: Buffer;
      try {
        bytes = readFileSync(file);
      } catch (e) {
        throw new KubeconfigError(`kubeconfig: cannot read ${file}: ${(e as Error).message}`);
      }
      this.#files.set(file, { bytes, at: now });
      return bytes;
    }
    return data ? Buffer.from(data, 'base64') : undefined;
  }

  /** Runs the exec plugin, keeping its credential until it expires. */
  async #exec(exec: KubeExec, user: string): Promise<ExecStatus> {
    const cached = this.#execCredential;
    if (cached && Date.now() < cached.until) return cached.status;
    const apiVersion = exec.apiVersion ?? 'client.authentication.k8s.io/v1';
    const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify({ apiVersion, kind: 'ExecCredential', spec: { interactive: false } }) };
    for (const e of exec.env ?? []) env[e.name] = e.value;
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(exec.command, [...(exec.args ?? [])], { env, timeout: 30_000, maxBuffer: 1 << 20 }, (err, out, errOut) => {
        if (err) reject(new KubeconfigError(`users[${user}].exec ${exec.command}: ${err.message}${errOut ? `: ${String(errOut).trim()}` : ''}`));
        else resolve(String(out));
      });
    });
    let status: ExecStatus | undefined;
    try {
      status = (JSON.parse(stdout) as { status?: ExecStatus }).status;
    } catch (e) {
      throw new KubeconfigError(`users[${user}].exec ${exec.command}: output is not an ExecCredential: ${(e as Error).message}`);
    }
    if (!status || (!status.token && !status.clientCertificateData)) throw new KubeconfigError(`users[${user}].exec ${exec.command}: the ExecCredential has no status.token or status.clientCertificateData`);
    const until = status.expirationTimestamp ? Date.parse(status.expirationTimestamp) : Number.POSITIVE_INFINITY;
    this.#execCredential = { status, until };
    return status;
  }
}

interface ExecStatus {
  readonly token?: string;
  readonly clientCertificateData?: string;
  readonly clientKeyData?: string;
  readonly expirationTimestamp?: string;
}

/** The named entries of a kubeconfig list: [name, the inner object, where it is]. */
function entries(list: unknown, field: string, inner: string, origin: string, innerOptional = false): Array<[string, Record<string, unknown>, string]> {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new KubeconfigError(`${origin}: ${field} is not a list`);
  return list.map((e: unknown, i) => {
    const at = `${field}[${i}]`;
    const o = (e ?? {}) as Record<string, unknown>;
    if (typeof o['name'] !== 'string' || o['name'] === '') throw new KubeconfigError(`${origin}: ${at}.name is missing`);
    const body = o[inner];
    if (body === undefined || body === null) {
      if (innerOptional) return [o['name'], {}, at];
      throw new KubeconfigError(`${origin}: ${at}.${inner} is missing`);
    }
    return [o['name'], body as Record<string, unknown>, at];
  });
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function dropUndefined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}
