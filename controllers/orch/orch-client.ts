import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createInterface } from 'node:readline';
import { Observable } from 'rxjs';
import { timeoutSignal, type Clock } from '../../core/index.js';
import type { OrchCredentials, OrchKubeConfig } from './kubeconfig.js';
import { loadOrchKubeConfig, validateOrchClientOptions, type OrchClientOptions, type OrchConfigSource } from './orch-client-options.js';
import { TokenBucket } from './token-bucket.js';

/** Query parameters of a request; undefined values are left out. */
export type OrchQuery = Readonly<Record<string, string | number | boolean | undefined>>;

/** Options of {@link OrchClient.request}. */
export interface OrchRequestOptions {
  readonly query?: OrchQuery;
  /** A body, sent as JSON (or with `contentType`, e.g. a merge patch). */
  readonly body?: unknown;
  /** Default `application/json`; patches use `application/merge-patch+json` and similar. */
  readonly contentType?: string;
  readonly signal?: AbortSignal;
  /** Give up when the whole exchange takes longer; default 60 s. */
  readonly timeoutMs?: number;
}

/** The default time limit of {@link OrchClient.request}. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** One line of a watch stream, as the API server sends it. */
export interface RawWatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: Record<string, unknown>;
}

/** A request the API server answered with an error status (a `Status` object when it sent one). */
export class OrchApiError extends Error {
  override readonly name = 'OrchApiError';
  constructor(
    /** The HTTP status, e.g. 404, 409, 410. */
    readonly status: number,
    /** The Status `reason`, e.g. `NotFound`, `Expired`, `Gone`, or '' when absent. */
    readonly reason: string,
    readonly method: string,
    readonly path: string,
    serverMessage: string,
  ) {
    super(`${method} ${path}: HTTP ${status}${reason ? ` ${reason}` : ''}: ${serverMessage}`);
  }
}

/** Settings of {@link OrchClient} beyond {@link OrchClientOptions}. */
export interface OrchClientInternals {
  /** Clock of the rate limiter; default the system clock. */
  readonly clock?: Clock;
}

/** The two calls informers make; {@link OrchClient} implements it, tests may fake it. */
export interface OrchTransport {
  request<T>(method: string, path: string, options?: OrchRequestOptions): Promise<T>;
  watch(path: string, query: OrchQuery): Observable<RawWatchEvent>;
}

/**
 * An orchestrator (Kubernetes) API client: JSON requests and watch streams over `node:https` with the
 * kubeconfig's credentials, every request (watches included) taking a token from one QPS/burst bucket.
 */
export class OrchClient<K extends OrchCredentials = OrchCredentials> implements OrchTransport {
  readonly #kc: K;
  readonly #bucket: TokenBucket;
  readonly #server: string;
  readonly #userAgent: string;

  /**
   * @throws OrchConfigError when the options are invalid (see `validateOrchClientOptions`)
   */
  constructor(kc: K, options: OrchClientOptions, internals: OrchClientInternals = {}) {
    validateOrchClientOptions(options);
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    this.#kc = kc;
    this.#server = cluster.server.replace(/\/+$/, '');
    this.#bucket = new TokenBucket(options.qps, options.burst, internals.clock);
    this.#userAgent = options.userAgent ?? 'mesh';
  }

  /** The credentials the client authenticates with (a kubeconfig: ours, or the client library's). */
  get kubeConfig(): K {
    return this.#kc;
  }

  /** The API server URL, without a trailing slash. */
  get server(): string {
    return this.#server;
  }

  /**
   * Sends one request and parses the JSON answer.
   * @throws OrchApiError when the server answers a status >= 400
   */
  async request<T>(method: string, path: string, options: OrchRequestOptions = {}): Promise<T> {
    await this.#bucket.take(options.signal);
    const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const timeout = timeoutSignal(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    try {
      const res = await this.#send(method, path, { ...options, signal }, false);
      const text = await readAll(res);
      if ((res.statusCode ?? 0) >= 400) throw apiError(method, path, res.statusCode ?? 0, text);
      return (text === '' ? undefined : JSON.parse(text)) as T;
    } catch (err) {
      if (timeout.aborted && !options.signal?.aborted) {
        throw new Error(`${method} ${path}: no complete answer within ${timeoutMs} ms`, { cause: err });
      }
      throw err;
    }
  }

  /**
   * Like {@link request}, for answers that are not JSON (`pods/log`): the body as text. Same bucket, time
   * limit and errors.
   */
  async requestText(method: string, path: string, options: OrchRequestOptions = {}): Promise<string> {
    await this.#bucket.take(options.signal);
    const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const timeout = timeoutSignal(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    try {
      const res = await this.#send(method, path, { ...options, signal }, false);
      const text = await readAll(res);
      if ((res.statusCode ?? 0) >= 400) throw apiError(method, path, res.statusCode ?? 0, text);
      return text;
    } catch (err) {
      if (timeout.aborted && !options.signal?.aborted) throw new Error(`${method} ${path}: no complete answer within ${timeoutMs} ms`, { cause: err });
      throw err;
    }
  }

  /**
   * Opens a watch (`watch=true` is added) and emits each event line. Completes when the server ends the
   * stream; errors with {@link OrchApiError} when the server refuses the watch, or with the network error.
   * Unsubscribing aborts the request.
   */
  watch(path: string, query: OrchQuery): Observable<RawWatchEvent> {
    return new Observable<RawWatchEvent>((subscriber) => {
      const controller = new AbortController();
      const run = async (): Promise<void> => {
        await this.#bucket.take(controller.signal);
        const res = await this.#send('GET', path, { query: { ...query, watch: true }, signal: controller.signal }, true);
        if ((res.statusCode ?? 0) !== 200) {
          throw apiError('GET', path, res.statusCode ?? 0, await readAll(res));
        }
        const lines = createInterface({ input: res, crlfDelay: Infinity });
        for await (const line of lines) {
          if (line.trim() === '') continue;
          subscriber.next(JSON.parse(line) as RawWatchEvent);
        }
        // NOTE: `aborted` means the connection dropped mid-body (e.g. the server died): an error, not an end.
        if (res.errored || !res.complete) throw res.errored ?? new Error(`GET ${path}: watch connection closed mid-stream`);
        subscriber.complete();
      };
      run().catch((err: unknown) => {
        if (!controller.signal.aborted) subscriber.error(err);
      });
      return () => controller.abort();
    });
  }

  async #send(method: string, path: string, options: OrchRequestOptions, streaming: boolean): Promise<IncomingMessage> {
    const url = new URL(this.#server + path);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const requestOptions: RequestOptions & { headers: Record<string, string> } = {
      method,
      headers: { Accept: 'application/json', 'User-Agent': this.#userAgent },
    };
    if (body !== undefined) {
      requestOptions.headers['Content-Type'] = options.contentType ?? 'application/json';
      requestOptions.headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    await this.#kc.applyToHTTPSOptions(requestOptions);
    const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = send(url, { ...requestOptions, signal: options.signal }, (res) => {
        if (streaming) res.socket?.setKeepAlive(true, 30_000);
        resolve(res);
      });
      req.on('error', reject);
      req.end(body);
    });
  }
}

async function readAll(res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let text = '';
  for await (const chunk of res) text += chunk as string;
  return text;
}

function apiError(method: string, path: string, status: number, text: string): OrchApiError {
  let reason = '';
  let message = text.slice(0, 1000);
  try {
    const parsed = JSON.parse(text) as { kind?: string; reason?: string; message?: string };
    if (parsed.kind === 'Status') {
      reason = parsed.reason ?? '';
      message = parsed.message ?? message;
    }
  } catch {
    // Not JSON: keep the raw text.
  }
  return new OrchApiError(status, reason, method, path, message);
}

/**
 * Builds the orchestrator client a program uses: the kubeconfig from `source` (see `loadOrchKubeConfig`)
 * and the validated `options`.
 * @throws OrchConfigError naming the flag, variable or file that is wrong
 */
export function createOrchClient(source: OrchConfigSource, options: OrchClientOptions): OrchClient<OrchKubeConfig> {
  validateOrchClientOptions(options);
  return new OrchClient(loadOrchKubeConfig(source), options);
}
