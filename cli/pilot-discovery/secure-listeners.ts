/**
 * meshd's TLS listeners: the secure gRPC server (--secureGRPCAddr, default :15012: ADS and the certificate
 * service) and the HTTPS listener (--httpsAddr, default :15017: `/ready` and the handlers mounted on it, the
 * injection and validation webhooks). Their
 * certificate comes from --tlsCertFile/--tlsKeyFile (trusting --caCertFile for client certificates) or is
 * issued by meshd's own CA for `meshd.<ns>.svc` (+ `.<domain>`) and MESHD_CUSTOM_HOST, and renewed by
 * `ServingCertificateManager`: a renewal reaches new handshakes while open connections keep going.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { ServingCertificateManager, type MeshCa, type StaticCertificateProvider } from '../../ca/index.js';
import { formatListenAddress, listenOn, ListenError, parseListenAddress, requestPath, type ListenAddress } from '../../core/index.js';
import { shutdownGrpc } from './meshd-server.js';
import { ReloadableServerCredentials, secureContextOptions, type TlsMaterial } from './secure-tls.js';

/** Where the secure listeners' certificate comes from. */
export type TlsSourceOptions =
  | {
    readonly kind: 'files';
    readonly certFile: string;
    readonly keyFile: string;
    readonly caCertFile: string;
    /** Roots trusted for client certificates besides --caCertFile (the mesh CA's bundle at start, when it runs). */
    readonly extraTrustPem?: string;
  }
  | { readonly kind: 'ca'; readonly ca: MeshCa; readonly dnsNames: readonly string[]; readonly ttlMs: number };

/** The current TLS material and its changes. */
export interface TlsSource {
  readonly material: TlsMaterial;
  /** Calls `listener` after every change of the material; returns the unsubscribe function. */
  onChange(listener: (material: TlsMaterial) => void): () => void;
  /** Re-issues the certificate now (CA source); resolves when the new material is published. */
  renewNow(): Promise<void>;
  stop(): void;
}

/** Thrown for unreadable TLS files; names the flag and file. */
export class TlsFileError extends Error {
  override readonly name = 'TlsFileError';
}

function readFlagFile(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new TlsFileError(`--${flag} ${path}: ${(err as Error).message}`);
  }
}

/** The DNS names of meshd's own serving certificate: `meshd.<ns>.svc`, `meshd.<ns>.svc.<domain>`, then MESHD_CUSTOM_HOST. */
export function servingDnsNames(namespace: string, domain: string, customHosts: string | undefined): string[] {
  const names = [`meshd.${namespace}.svc`, `meshd.${namespace}.svc.${domain}`];
  for (const h of (customHosts ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0)) if (!names.includes(h)) names.push(h);
  return names;
}

/** Waits for the provider's first identity and CA updates and follows later ones. */
async function followProvider(provider: StaticCertificateProvider): Promise<{ material: TlsMaterial; listeners: Set<(m: TlsMaterial) => void>; current: () => TlsMaterial; stop: () => void }> {
  let identity: grpc.experimental.IdentityCertificateUpdate | undefined;
  let caUpdate: grpc.experimental.CaCertificateUpdate | undefined;
  const listeners = new Set<(m: TlsMaterial) => void>();
  let material: TlsMaterial | undefined;
  let first: (() => void) | undefined;
  const ready = new Promise<void>((resolve) => (first = resolve));
  const publish = (): void => {
    if (!identity || !caUpdate) return;
    material = { certChainPem: identity.certificate.toString(), keyPem: identity.privateKey.toString(), trustBundlePem: caUpdate.caCertificate.toString() };
    if (first) {
      first();
      first = undefined;
      return;
    }
    for (const l of listeners) l(material);
  };
  const onIdentity = (u: grpc.experimental.IdentityCertificateUpdate | null): void => {
    if (!u) return;
    identity = u;
    publish();
  };
  const onCa = (u: grpc.experimental.CaCertificateUpdate | null): void => {
    if (!u) return;
    caUpdate = u;
    publish();
  };
  provider.addCaCertificateListener(onCa);
  provider.addIdentityCertificateListener(onIdentity);
  await ready;
  return {
    material: material!,
    listeners,
    current: () => material!,
    stop: () => {
      provider.removeCaCertificateListener(onCa);
      provider.removeIdentityCertificateListener(onIdentity);
    },
  };
}

/** Builds the TLS source: files read once, or a CA-issued certificate renewed at half its life and on root change. */
export async function createTlsSource(options: TlsSourceOptions, logger: Logger): Promise<TlsSource> {
  if (options.kind === 'files') {
    const material: TlsMaterial = {
      certChainPem: readFlagFile('tlsCertFile', options.certFile),
      keyPem: readFlagFile('tlsKeyFile', options.keyFile),
      trustBundlePem: [options.caCertFile ? readFlagFile('caCertFile', options.caCertFile) : '', options.extraTrustPem ?? ''].filter((p) => p !== '').join('\n'),
    };
    return { material, onChange: () => () => undefined, renewNow: () => Promise.resolve(), stop: () => undefined };
  }
  const manager = new ServingCertificateManager(options.ca, { dnsNames: options.dnsNames, ttlMs: options.ttlMs }, { logger });
  const followed = await followProvider(await manager.start());
  logger.info({ dnsNames: options.dnsNames, ttlMs: options.ttlMs }, 'serving certificate issued by the mesh CA');
  return {
    get material() {
      return followed.current();
    },
    onChange: (l) => {
      followed.listeners.add(l);
      return () => followed.listeners.delete(l);
    },
    renewNow: () => manager.renewNow(),
    stop: () => {
      manager.stop();
      followed.stop();
    },
  };
}

/** Binds a grpc-js server with TLS credentials; a failure is a ListenError naming the flag. */
export function bindSecureGrpc(server: grpc.Server, address: string, flagName: string, credentials: grpc.ServerCredentials): Promise<ListenAddress> {
  const parsed = parseListenAddress(address, flagName);
  const target = parsed.host === '' ? `[::]:${parsed.port}` : formatListenAddress(parsed);
  return new Promise((resolve, reject) => {
    server.bindAsync(target, credentials, (err, port) => {
      if (err) {
        const inUse = /EADDRINUSE/.test(err.message);
        reject(new ListenError(`--${flagName} ${address}: ${inUse ? 'address already in use' : err.message}`, inUse ? 'EADDRINUSE' : undefined));
      } else resolve({ host: parsed.host, port });
    });
  });
}

/** A handler mounted on the HTTPS listener: answers and returns true, or returns false for paths it does not serve. */
export type HttpsRoute = (req: IncomingMessage, res: ServerResponse) => boolean;

/** The HTTPS listener's answer: `/ready`, then the mounted routes, else 404 naming what is served. */
function httpsHandler(routes: readonly HttpsRoute[]): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const target = requestPath(req.url);
    if ('error' in target) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(`${JSON.stringify({ error: target.error })}\n`);
      return;
    }
    const { path } = target;
    if (path === '/ready') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ready\n');
      return;
    }
    for (const route of routes) if (route(req, res)) return;
    res.writeHead(404, { 'content-type': 'application/json' })
      .end(`${JSON.stringify({ error: `no handler for ${path} on the HTTPS listener (serves /ready${routes.length > 0 ? ', /inject, /validate' : ''})` })}\n`);
  };
}

/** The running secure listeners. */
export interface SecureListeners {
  readonly grpc: grpc.Server;
  readonly grpcAddress: ListenAddress;
  readonly https: HttpsServer;
  readonly httpsAddress: ListenAddress;
  readonly credentials: ReloadableServerCredentials;
  /** Adds a route to the HTTPS listener (the webhooks), tried in order after `/ready`. */
  mount(route: HttpsRoute): void;
}

/** Options of {@link startSecureListeners}. */
export interface SecureListenerOptions {
  readonly secureGrpcAddr: string;
  readonly httpsAddr: string;
  /** grpc-js server options (keepalive, limits) as the plaintext discovery server's. */
  readonly grpcOptions: grpc.ServerOptions;
  readonly ciphers: string | undefined;
  readonly shutdownMs: number;
  /** Registers services on the secure gRPC server before it binds. */
  readonly register: (server: grpc.Server) => void;
}

/**
 * Starts both TLS listeners with `tls`'s material and follows its changes (new handshakes get the new
 * certificate, open connections are kept). Returns the listeners and a close function (gRPC graceful within
 * `shutdownMs`, then HTTPS).
 */
export async function startSecureListeners(o: SecureListenerOptions, tls: TlsSource): Promise<SecureListeners & { close(): Promise<void> }> {
  const credentials = new ReloadableServerCredentials(tls.material, o.ciphers);
  const server = new grpc.Server(o.grpcOptions);
  o.register(server);
  const routes: HttpsRoute[] = [];
  const https = createHttpsServer(secureContextOptions(tls.material, o.ciphers), httpsHandler(routes));
  // NOTE: closeAllConnections() misses sockets that never sent a request; track them all for shutdown.
  const sockets = new Set<Socket>();
  https.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const unsubscribe = tls.onChange((material) => {
    credentials.update(material);
    https.setSecureContext(secureContextOptions(material, o.ciphers));
  });
  const close = async (): Promise<void> => {
    unsubscribe();
    await shutdownGrpc(server, o.shutdownMs);
    const closed = new Promise<void>((resolve) => https.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  try {
    const grpcAddress = await bindSecureGrpc(server, o.secureGrpcAddr, 'secureGRPCAddr', credentials);
    const httpsAddress = await listenOn(https, o.httpsAddr, 'httpsAddr');
    return { grpc: server, grpcAddress, https, httpsAddress, credentials, close, mount: (route) => void routes.push(route) };
  } catch (err) {
    unsubscribe();
    server.forceShutdown();
    if (https.listening) https.close();
    throw err;
  }
}
