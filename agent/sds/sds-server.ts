/**
 * The agent's SDS server (envoy.service.secret.v3.SecretDiscoveryService, state of the world) on a Unix
 * socket: `default` is the workload key and chain, `ROOTCA` the trust bundle. Each stream gets the
 * secrets it names as soon as the first one is issued, and again on every rotation. ACKs are noted,
 * NACKs logged; names the agent does not serve are reported once per stream and left unanswered.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { decode, encode, typeUrlOf } from '../xds-protos.js';
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

/** A running SDS server. */
export class SdsServer {
  readonly #server = new grpc.Server();
  readonly #cache: SecretCache;
  readonly #log: Logger;
  #nonce = 0;
  readonly #streams = new Set<{ names: string[]; send: (s: WorkloadSecret) => void }>();
  readonly #unsubscribe: () => void;
  /** Responses sent, by resource name (for tests and debug). */
  readonly pushes = new Map<string, number>();

  private constructor(
    readonly socketPath: string,
    cache: SecretCache,
    logger: Logger,
  ) {
    this.#cache = cache;
    this.#log = logger;
    this.#unsubscribe = cache.subscribe((s) => {
      for (const st of this.#streams) st.send(s);
    });
    this.#server.addService(SERVICE, { StreamSecrets: (call: grpc.ServerDuplexStream<Buffer, Buffer>) => this.#stream(call) });
  }

  /** Listens on `socketPath` (a stale socket file is replaced). */
  static async start(socketPath: string, cache: SecretCache, logger: Logger): Promise<SdsServer> {
    mkdirSync(dirname(socketPath), { recursive: true });
    rmSync(socketPath, { force: true });
    const s = new SdsServer(socketPath, cache, logger);
    await new Promise<void>((res, rej) => s.#server.bindAsync(`unix:${socketPath}`, grpc.ServerCredentials.createInsecure(), (e) => (e ? rej(e) : res())));
    return s;
  }

  #stream(call: grpc.ServerDuplexStream<Buffer, Buffer>): void {
    const state = { names: [] as string[], lastSent: undefined as WorkloadSecret | undefined, nonce: '', send: (_s: WorkloadSecret): void => undefined };
    state.send = (s: WorkloadSecret): void => {
      const names = state.names.filter((n) => n === WORKLOAD_SECRET || n === ROOT_SECRET);
      if (names.length === 0 || state.lastSent === s) return;
      state.lastSent = s;
      state.nonce = String(++this.#nonce);
      const response = {
        versionInfo: new Date(s.notBeforeMs).toISOString(),
        typeUrl: SECRET_TYPE_URL,
        nonce: state.nonce,
        resources: names.map((n) => ({ type_url: SECRET_TYPE_URL, value: encode('envoy.extensions.transport_sockets.tls.v3.Secret', secretResource(n, s)) })),
      };
      for (const n of names) this.pushes.set(n, (this.pushes.get(n) ?? 0) + 1);
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
      const unknown = names.filter((n) => n !== WORKLOAD_SECRET && n !== ROOT_SECRET);
      if (unknown.length > 0) this.#log.warn({ names: unknown }, 'SDS request for secrets the agent does not serve');
      const changed = names.join(',') !== state.names.join(',');
      state.names = names;
      if (req.responseNonce && req.responseNonce === state.nonce && !changed) return; // ACK
      if (changed) state.lastSent = undefined;
      const current = this.#cache.current;
      if (current) state.send(current);
      else void this.#cache.ready().then((s) => state.send(s), () => undefined);
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
    await new Promise<void>((res) => this.#server.tryShutdown(() => res()));
    this.#server.forceShutdown();
    rmSync(this.socketPath, { force: true });
  }
}
