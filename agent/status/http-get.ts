/** One small HTTP request with a deadline, for the agent's probes of the proxy and the app. */
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** The answer of `httpGet`. */
export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
  readonly contentType?: string;
}

/** GET (or `method`) `url`; rejects on connection errors and after `timeoutMs`. HTTPS skips verification, as kubelet probes do. */
export function httpGet(url: string, timeoutMs: number, headers: OutgoingHttpHeaders = {}, method = 'GET'): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = (url.startsWith('https:') ? httpsRequest : httpRequest)(url, { method, headers, timeout: timeoutMs, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ...(res.headers['content-type'] ? { contentType: res.headers['content-type'] } : {}) }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs}ms`)));
    req.on('error', reject);
    req.end();
  });
}
