import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import type { Env } from '../env/index.js';
import { DEFAULT_SCOPE, LogConfigError, type Logging } from '../log/index.js';
import { listenHttp, requestPath, type HttpListener, type HttpListenerLimits } from '../lifecycle/index.js';
import type { Metrics } from '../metrics/index.js';
import type { ProgramName } from '../program.js';
import { CTRLZ_TOPICS, renderCtrlzPage, renderTopicPage, type CtrlzPageData, type CtrlzTopic } from './ctrlz-page.js';
import { checkRequest } from './request-guard.js';
import { argInfo, envInfo, memInfo, metricInfo, procInfo, scopeInfo, scopesInfo, versionInfo } from './topics.js';

/** Options of `startCtrlz`, from `--ctrlz_address` and `--ctrlz_port`. */
export interface CtrlzOptions {
  /** Host to listen on; `*` or empty = every address. */
  address: string;
  port: number;
  logging: Logging;
  metrics: Metrics;
  program: ProgramName;
  env: Env;
  /** More names the Host header may carry (besides IP literals, localhost, the address and the host name). */
  allowedHosts?: readonly string[];
  /** Connection bounds of the listener (defaults `DEFAULT_HTTP_LIMITS`). */
  limits?: Partial<HttpListenerLimits>;
}

const MAX_BODY = 64 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Starts the introspection facility (Istio's ControlZ): an HTML page of every topic at `/`, one HTML page per
 * topic (`/scopez/`, `/memz/`, `/procz/`, `/envz/`, `/argz/`, `/versionz/`, `/metricz/`; the scope page's
 * selectors PUT to `/scopej/<scope>`) and its JSON form (`/scopej/`, `/memj/`, ... `/metricj/`), and
 * `GET|PUT /scopej/<scope>` (PUT `{output_level?, stack_trace_level?}` answers 202 with the scope; `all` sets
 * every scope; 400 bad level or body, 404 unknown scope). Secrets' values are never shown (envz redacts
 * variables named like tokens and keys). Bind errors are ListenErrors naming `--ctrlz_port`.
 *
 * Every request's Host must be an IP literal, localhost or a name of this server (403 otherwise: DNS
 * rebinding); a PUT must carry `content-type: application/json` (415) and no foreign Origin (403): see
 * `request-guard.ts`.
 */
export function startCtrlz(options: CtrlzOptions): Promise<HttpListener> {
  const host = options.address === '*' ? '' : options.address;
  const guard = { allowedHosts: [...(host !== '' && isIP(host) === 0 ? [host] : []), hostname(), ...(options.allowedHosts ?? [])] };
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const refusal = checkRequest(req, guard);
    if (refusal) {
      req.resume();
      return send(res, refusal.status, `${refusal.message}\n`, 'text/plain; charset=utf-8');
    }
    route(options, req)
      .then(({ status, body, type }) => send(res, status, body, type))
      .catch((err: unknown) => {
        const status = err instanceof HttpError ? err.status : 500;
        send(res, status, `${(err as Error).message}\n`, 'text/plain; charset=utf-8');
      });
  };
  return listenHttp(handler, { host, port: options.port }, 'ctrlz_port', options.limits);
}

/** The scope name of `/scopej/<name>`, percent-decoded. @throws HttpError 400 naming the text when an escape is malformed */
function scopeName(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // NOTE: decodeURIComponent's own message is only "URI malformed" (and it answered 500).
    throw new HttpError(400, `the scope name ${JSON.stringify(text)} in /scopej/ is not valid percent-encoding (want % and two hex digits, forming UTF-8)`);
  }
}

interface Reply {
  status: number;
  body: string;
  type: string;
}

const json = (value: unknown, status = 200): Reply => ({ status, body: `${JSON.stringify(value, null, 2)}\n`, type: 'application/json' });

async function route(o: CtrlzOptions, req: IncomingMessage): Promise<Reply> {
  const target = requestPath(req.url);
  if ('error' in target) throw new HttpError(400, target.error);
  const { path } = target;
  const method = req.method ?? 'GET';
  const scopeMatch = /^\/scopej\/(.+?)\/?$/.exec(path);
  if (scopeMatch) return scopeRoute(o, req, method, scopeName(scopeMatch[1]!));
  if (method !== 'GET') throw new HttpError(405, `${method} is not allowed on ${path}`);
  if (path === '/') return { status: 200, body: renderCtrlzPage(await pageData(o)), type: 'text/html; charset=utf-8' };
  // NOTE: Istio's paths end in a slash (`/memz/`); without it they answer the same.
  const topic = /^\/([a-z]+)([zj])\/?$/.exec(path);
  if (topic && (CTRLZ_TOPICS as readonly string[]).includes(topic[1]!)) {
    const t = topic[1] as CtrlzTopic;
    if (topic[2] === 'z') return { status: 200, body: renderTopicPage(t, await pageData(o)), type: 'text/html; charset=utf-8' };
    return json(await topicJson(o, t));
  }
  throw new HttpError(404, `no page at ${path} (topics: ${CTRLZ_TOPICS.map((t) => `/${t}z/`).join(', ')}; JSON at /<topic>j/)`);
}

async function topicJson(o: CtrlzOptions, topic: CtrlzTopic): Promise<unknown> {
  switch (topic) {
    case 'scope':
      return scopesInfo(o.logging);
    case 'proc':
      return procInfo(o.program);
    case 'mem':
      return memInfo();
    case 'env':
      return envInfo(o.env);
    case 'arg':
      return argInfo();
    case 'metric':
      return metricInfo(o.metrics);
    case 'version':
      return versionInfo();
  }
}

async function scopeRoute(o: CtrlzOptions, req: IncomingMessage, method: string, name: string): Promise<Reply> {
  const find = (): ReturnType<typeof scopeInfo> => {
    const state = o.logging.levels().find((s) => s.name === name);
    if (!state) throw new HttpError(404, `unknown scope "${name}" (valid scopes: ${o.logging.scopes().join(', ')})`);
    return scopeInfo(state);
  };
  if (method === 'GET') return json(find());
  if (method !== 'PUT') throw new HttpError(405, `${method} is not allowed on /scopej/${name}`);
  if (name !== 'all') find();
  const body = parseScopeBody(await readBody(req));
  try {
    if (body.output_level !== undefined) o.logging.setLevel(name, body.output_level);
    if (body.stack_trace_level !== undefined) o.logging.setStacktraceLevel(name, body.stack_trace_level);
  } catch (err) {
    if (err instanceof LogConfigError) throw new HttpError(400, err.message);
    throw err;
  }
  return json(name === 'all' ? scopesInfo(o.logging) : find(), 202);
}

function parseScopeBody(text: string): { output_level?: string; stack_trace_level?: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'body is not JSON (send {"output_level": "debug"} or {"stack_trace_level": "error"})');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new HttpError(400, 'body must be a JSON object');
  const v = value as Record<string, unknown>;
  for (const key of ['output_level', 'stack_trace_level']) {
    if (v[key] !== undefined && typeof v[key] !== 'string') throw new HttpError(400, `${key} must be a string`);
  }
  return v as { output_level?: string; stack_trace_level?: string };
}

async function readBody(req: IncomingMessage): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new HttpError(413, `body larger than ${MAX_BODY} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function pageData(o: CtrlzOptions): Promise<CtrlzPageData> {
  return {
    program: o.program,
    scopes: scopesInfo(o.logging).sort((a, b) => (a.name === DEFAULT_SCOPE ? -1 : b.name === DEFAULT_SCOPE ? 1 : a.name.localeCompare(b.name))),
    proc: procInfo(o.program),
    mem: memInfo(),
    env: envInfo(o.env),
    metrics: (await metricInfo(o.metrics)) as CtrlzPageData['metrics'],
    version: versionInfo(),
    args: argInfo(),
  };
}

function send(res: ServerResponse, status: number, body: string, type: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}
