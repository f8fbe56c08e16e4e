// bench:ca's floor (--server floor): what Node alone costs for the same calls. node:http2 over the same TLS
// answers each CreateCertificate with one real RSA 2048 signature, made on one worker thread per CPU over
// the request's bytes, and a fixed chain issued at start. Nothing else: no grpc-js, no token review, no CSR
// parsing or proof check, no certificate building. The real server's numbers minus these are what meshd's
// CA code and grpc-js cost; a target the floor misses cannot be met by a CA built on Node's HTTP/2.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { constants, createSecureServer, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { MeshCa } from '../../../ca/index.js';
import { encodeCertificateResponse, grpcFrame } from './certificate-messages.js';
import type { FloorSignerMessage } from './floor-signer.js';

const SERVER_NAME = 'meshd.mesh-system.svc';

class FloorSigners {
  readonly #workers: { worker: Worker; pending: Map<number, () => void> }[];
  #nextId = 1;

  constructor(key: KeyObject, threads: number) {
    this.#workers = Array.from({ length: threads }, () => {
      const worker = new Worker(new URL('./floor-signer.js', import.meta.url));
      const pending = new Map<number, () => void>();
      worker.on('message', (id: number) => {
        pending.get(id)?.();
        pending.delete(id);
      });
      worker.postMessage({ key } satisfies FloorSignerMessage);
      return { worker, pending };
    });
  }

  sign(data: Buffer): Promise<void> {
    const target = this.#workers.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    const id = this.#nextId++;
    return new Promise((resolve) => {
      target.pending.set(id, resolve);
      target.worker.postMessage({ id, data: data.toString('latin1') } satisfies FloorSignerMessage);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.worker.terminate()));
  }
}

/** Starts the floor server on 127.0.0.1:0 with a serving certificate and response chain from `ca`. */
export async function startFloorServer(ca: MeshCa): Promise<{ address: string; serverName: string; rootCertPem: string; close(): Promise<void> }> {
  const serving = await ca.issueServingCertificate([SERVER_NAME], 3600_000);
  const frame = grpcFrame(encodeCertificateResponse(serving.certChainPem));
  const signers = new FloorSigners(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, availableParallelism());
  const server = createSecureServer({ key: serving.keyPem, cert: serving.certChainPem.join('') });
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  server.on('stream', (stream: ServerHttp2Stream) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      void signers.sign(Buffer.concat(chunks)).then(() => {
        if (stream.destroyed) return;
        stream.respond({ [constants.HTTP2_HEADER_STATUS]: 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(frame);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${port}`,
    serverName: SERVER_NAME,
    rootCertPem: ca.trustBundlePem().join(''),
    close: async () => {
      await signers.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.destroy();
      });
    },
  };
}
