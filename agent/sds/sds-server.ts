/**
 * The agent's SDS server (envoy.service.secret.v3.SecretDiscoveryService, state of the world) on a Unix
 * socket: `default` is the workload key and chain, `ROOTCA` the trust bundle, and `file-cert:`/`file-root:`
 * names secrets from files (file-secrets.ts). Each stream gets the secrets it names as soon as the workload
 * certificate is issued (or at once when it names only files), and again on every rotation or file change.
 * ACKs are noted, NACKs logged; names the agent does not serve are reported and left unanswered.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { decode, encode, typeUrlOf } from '../xds-protos.js';
import { isFileSecretName, type FileSecrets } from './file-secrets.js';
import type { SecretCache } from './secret-cache.js';
import type { WorkloadSecret } from './workload-secret.js';

/** The SDS method path. */
export const SDS_STREAM_METHOD = '/envoy.service.secret.v3.SecretDiscoveryService/StreamSecrets';
/** Type URL of a Secret. */
export const SECRET_TYPE_URL = typeUrlOf('envoy.extensions.transport_sockets.tls.v3.Secret');
/** The workload certificate's resource name. */
export const WORKLOAD_SECRET = 'default';
/** The trust bundle's resource name. */
export const ROOT_SECRET = 'ROOTCA';

const identity = (b: Buffer): Buffer => b;
const SERVICE: grpc.ServiceDefinition = {
  StreamSecrets: { path: SDS_STREAM_METHOD, requestStream: true, responseStream: true, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity },
};

/** The Secret message (plain-object form) for a resource name. */
export function secretResource(name: string, s: WorkloadSecret): Record<string, unknown> {
  if (name === ROOT_SECRET) return { name, validationContext: { trustedCa: { inlineBytes: Buffer.from(s.rootCertPem) } } };
  return { name, tlsCertificate: { certificateChain: { inlineBytes: Buffer.from(s.certChainPem) }, privateKey: { inlineBytes: Buffer.from(s.keyPem) } } };
}

interface DiscoveryRequest {
  versionInfo?: string;
  resourceNames?: string[];
  typeUrl?: string;
  responseNonce?: string;
  errorDetail?: { message?: string };
}

const secretIds = new WeakMap<WorkloadSecret, number>();
let nextSecretId = 0;
/** A number per issued secret (two issued in the same second have the same notBefore). */
function secretIdOf(s: WorkloadSecret): number {
  let id = secretIds.get(s);
  if (id === undefined) secretIds.set(s, (id = ++nextSecretId));
  return id;
}

/** A running SDS server. */
export class SdsServer {
  readonly #server = new grpc.Server();
  readonly #cache: SecretCache;
  readonly #log: Logger;
  #nonce = 0;
  readonly #streams = new Set<{ names: string[]; push: () => void }>();
  readonly #unsubscribe: () => void;
  readonly #files: FileSecrets | undefined;
  readonly #unsubscribeFiles: () => void;
  /** Responses sent, by resource name (for tests and debug). */
  readonly pushes = new Map<string, number>();

  private constructor(
    readonly socketPath: string,
    cache: SecretCache,
    logger: Logger,
    files: FileSecrets | undefined,
  ) {
    this.#cache = cache;
    this.#log = logger;
    this.#files = files;
    this.#unsubscribe = cache.subscribe(() => {
      for (const st of this.#streams) st.push();
    });
    this.#unsubscribeFiles = files?.subscribe((name) => {
      for (const st of this.#streams) if (st.names.includes(name)) st.push();
    }) ?? ((): void => undefined);
    this.#server.addService(SERVICE, { StreamSecrets: (call: grpc.ServerDuplexStream<Buffer, Buffer>) => this.#stream(call) });
  }

  /** Listens on `socketPath` (a stale socket file is replaced); `files` serves `file-cert:`/`file-root:` names. */
  static async start(socketPath: string, cache: SecretCache, logger: Logger, files?: FileSecrets): Promise<SdsServer> {
    mkdirSync(dirname(socketPath), { recursive: true });
    rmSync(socketPath, { force: true });
    const s = new SdsServer(socketPath, cache, logger, files);
    await new Promise<void>((res, rej) => s.#server.bindAsync(`unix:${socketPath}`, grpc.ServerCredentials.createInsecure(), (e) => (e ? rej(e) : res())));
    return s;
  }

  #stream(call: grpc.ServerDuplexStream<Buffer, Buffer>): void {
    const state = { names: [] as string[], lastVersion: '', nonce: '', push: (): void => undefined };
    const isWorkloadName = (n: string): boolean => n === WORKLOAD_SECRET || n === ROOT_SECRET;
    state.push = (): void => {
      const workload: WorkloadSecret | undefined = this.#cache.current;
      // NOTE: a stream naming the workload certificate waits for it; file secrets alone go at once.
      if (state.names.some(isWorkloadName) && !workload) return;
      const resources: Record<string, unknown>[] = [];
      const versions: string[] = [];
      for (const n of state.names) {
        if (isWorkloadName(n) && workload) {
          resources.push(secretResource(n, workload));
          versions.push(`${n}@${secretIdOf(workload)}`);
        } else if (this.#files && isFileSecretName(n)) {
          const f = this.#files.get(n);
          if (f) {
            resources.push(f.secret);
            versions.push(`${n}@${f.version}`);
          }
        }
      }
      const version = versions.join(',');
      if (resources.length === 0 || version === state.lastVersion) return;
      state.lastVersion = version;
      state.nonce = String(++this.#nonce);
      const response = {
        versionInfo: workload && versions.length === state.names.filter(isWorkloadName).length ? new Date(workload.notBeforeMs).toISOString() : createHash('sha256').update(version).digest('hex').slice(0, 16),
        typeUrl: SECRET_TYPE_URL,
        nonce: state.nonce,
        resources: resources.map((r) => ({ type_url: SECRET_TYPE_URL, value: encode('envoy.extensions.transport_sockets.tls.v3.Secret', r) })),
      };
      for (const r of resources) this.pushes.set(String(r['name']), (this.pushes.get(String(r['name'])) ?? 0) + 1);
      call.write(Buffer.from(encode('envoy.service.discovery.v3.DiscoveryResponse', response)));
    };
    this.#streams.add(state);
    const end = (): void => {
      this.#streams.delete(state);
    };
    call.on('data', (bytes: Buffer) => {
      let req: DiscoveryRequest;
      try {
        req = decode('envoy.service.discovery.v3.DiscoveryRequest', bytes) as DiscoveryRequest;
      } catch (e) {
        // NOTE: grpc-js ends a server stream with a status when the call emits 'error' with a code.
        call.emit('error', { code: grpc.status.INVALID_ARGUMENT, details: `bad DiscoveryRequest: ${(e as Error).message}` });
        return;
      }
      if (req.errorDetail?.message) {
        this.#log.warn({ nonce: req.responseNonce, error: req.errorDetail.message }, 'SDS NACK from the proxy');
        return;
      }
      const names = req.resourceNames ?? [];
      const unknown = names.filter((n) => !isWorkloadName(n) && !(this.#files && isFileSecretName(n)));
      if (unknown.length > 0) this.#log.warn({ names: unknown }, 'SDS request for secrets the agent does not serve');
      const changed = names.join(',') !== state.names.join(',');
      state.names = names;
      if (req.responseNonce && req.responseNonce === state.nonce && !changed) return; // ACK
      if (changed) state.lastVersion = '';
      state.push();
      if (names.some(isWorkloadName) && !this.#cache.current) void this.#cache.ready().then(() => state.push(), () => undefined);
    });
    call.on('end', () => {
      end();
      call.end();
    });
    call.on('error', end);
    call.on('cancelled', end);
  }

  /** Stops serving and removes the socket. */
  async close(): Promise<void> {
    this.#unsubscribe();
    this.#unsubscribeFiles();
    await new Promise<void>((res) => this.#server.tryShutdown(() => res()));
    this.#server.forceShutdown();
    rmSync(this.socketPath, { force: true });
  }
}
