/**
 * The `request <method> <path> [<body>]` commands of pilot-discovery and pilot-agent: one HTTP request
 * to a local debug port, body printed to stdout.
 */
import { request as httpRequest } from 'node:http';
import { CliError, type RunContext } from '../framework/index.js';

/** The HTTP methods `request` sends. */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'PATCH', 'OPTIONS'] as const;

/** One finished response. */
export interface HttpResult {
  readonly status: number;
  readonly body: string;
}

/**
 * Sends `method` to `http://host:port/path` with an optional body and resolves with the response.
 * Rejects with a CliError naming the address when the connection fails or takes longer than `timeoutMs`.
 */
export function sendHttp(host: string, port: number, method: string, path: string, body: string | undefined, timeoutMs: number): Promise<HttpResult> {
  const target = `http://${host}:${port}${path.startsWith('/') ? path : `/${path}`}`;
  return new Promise((resolve, reject) => {
    const req = httpRequest(target, { method, timeout: timeoutMs, headers: body === undefined ? {} : { 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (e) => reject(new CliError(`${method} ${target}: ${e.message}`)));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs}ms`)));
    req.on('error', (e: NodeJS.ErrnoException) => reject(new CliError(`${method} ${target}: ${e.code === 'ECONNREFUSED' ? 'connection refused (is the daemon running?)' : e.message}`)));
    req.end(body);
  });
}

/**
 * Runs a `request` command against `host:port`: prints the body; a status of 400 or more is an error
 * (the body is still printed) naming the status.
 */
export async function runRequest(ctx: RunContext, host: string, port: number): Promise<number> {
  const [methodArg, path, body] = ctx.args as [string, string, string | undefined];
  const method = methodArg.toUpperCase();
  if (!(HTTP_METHODS as readonly string[]).includes(method)) {
    throw new CliError(`unknown HTTP method "${methodArg}" (use one of ${HTTP_METHODS.join(', ')})`);
  }
  const res = await sendHttp(host, port, method, path, body, 30_000);
  ctx.io.stdout.write(res.body.endsWith('\n') || res.body === '' ? res.body : `${res.body}\n`);
  if (res.status >= 400) throw new CliError(`${method} ${path}: HTTP ${res.status}`);
  return 0;
}
