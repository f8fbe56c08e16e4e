/**
 * HTTP/1.1 over a {@link PodDialer}'s stream: how meshctl talks to a proxy's admin API (15000), the agent's
 * status port (15020) or meshd's debug port (8080) inside a pod. One connection per request.
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import { timeoutSignal } from '../../core/index.js';
import type { PodDialer } from './pod-dialer.js';
import { dotted, type PodRef } from './pod-target.js';
import { ReachError } from './reach-error.js';

/** One request to a pod's port. */
export interface PodHttpRequest {
  readonly method?: string;
  /** Path and query, e.g. `/config_dump?include_eds`. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /** Gives up after this long (default 30 s). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** The answer, whatever its status. */
export interface PodHttpResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** The default time a pod request may take. */
export const DEFAULT_POD_HTTP_TIMEOUT_MS = 30_000;

/**
 * Sends one HTTP request to `port` of `pod` through `dial` and reads the whole answer.
 * @throws ReachError when the dial fails, the connection breaks or the time runs out (not for HTTP statuses)
 */
export async function podHttpRequest(dial: PodDialer, pod: PodRef, port: number, req: PodHttpRequest): Promise<PodHttpResponse> {
  const method = req.method ?? 'GET';
  const where = `${method} ${req.path} on pod ${dotted(pod)} port ${port}`;
  const timeoutMs = req.timeoutMs ?? DEFAULT_POD_HTTP_TIMEOUT_MS;
  const timeout = timeoutSignal(timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
  const stream: Duplex = await dial(pod, port);
  try {
    return await new Promise<PodHttpResponse>((resolve, reject) => {
      const fail = (err: unknown): void => {
        const why = timeout.aborted ? `no complete answer within ${timeoutMs} ms` : (err as Error).message;
        reject(err instanceof ReachError ? err : new ReachError(`${where}: ${why}`));
      };
      const headers: Record<string, string> = { host: 'localhost', connection: 'close', ...req.headers };
      if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
      const r = request({ method, path: req.path, headers, signal, createConnection: () => stream as never }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.once('error', fail);
      });
      r.once('error', fail);
      r.end(req.body);
    });
  } finally {
    stream.destroy();
  }
}

/**
 * GETs `path` from `port` of `pod` and returns the body as text.
 * @throws ReachError as {@link podHttpRequest} does, and for a status other than 2xx (with the body's start)
 */
export async function podHttpGet(dial: PodDialer, pod: PodRef, port: number, path: string, options: Omit<PodHttpRequest, 'path' | 'method' | 'body'> = {}): Promise<string> {
  const res = await podHttpRequest(dial, pod, port, { ...options, path });
  const text = res.body.toString('utf8');
  if (res.status < 200 || res.status >= 300) {
    throw new ReachError(`GET ${path} on pod ${dotted(pod)} port ${port}: HTTP ${res.status}: ${text.slice(0, 300).trim()}`);
  }
  return text;
}
