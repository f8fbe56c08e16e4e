/**
 * The HTTP side of meshd's webhooks on :15017: `POST /inject` (and `/inject/cluster/<id>/net/<network>`)
 * and `POST /validate`. Every request gets an AdmissionReview answer (a malformed body, a pod that cannot
 * be injected, an invalid resource: a refusal naming why), never a crash; each is counted in the spec's
 * `sidecar_injection_*` and `webhook_validation_*` metrics.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { KIND_NAMES } from '../crds/index.js';
import { requestPath, type Metrics } from '../core/index.js';
import { admissionReview, AdmissionReviewError, parseAdmissionReview, refuse, reviewInjection, reviewValidation, type AdmissionRequest } from './admission-review.js';
import type { SidecarInjector } from './sidecar-injector.js';

/** The largest AdmissionReview body read (a pod with large annotations fits many times over). */
export const MAX_REVIEW_BYTES = 8 * 1024 * 1024;

/** What the handler needs. */
export interface WebhookHandlerDeps {
  /** The current injector; undefined turns `/inject` off (INJECT_ENABLED=false): 404. */
  readonly injector: () => SidecarInjector | undefined;
  /** Serve `/validate` (default true). */
  readonly validation?: boolean;
  readonly metrics: Metrics;
  readonly logger: Logger;
}

/** A request handler that answers the webhook paths and returns false for any other path. */
export type WebhookHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

class BodyTooLargeError extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // NOTE: past the limit the rest is read and dropped (not kept), so the 413 answer reaches the caller.
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_REVIEW_BYTES) chunks.push(c);
    });
    req.on('end', () => (size > MAX_REVIEW_BYTES ? reject(new BodyTooLargeError(`the body is larger than ${MAX_REVIEW_BYTES} bytes`)) : resolve(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
}

/** `s` percent-decoded. @throws Error naming `what` and the text when an escape is malformed (`%ZZ`, `%E0%A4%A`) */
function percentDecoded(s: string, what: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    // NOTE: decodeURIComponent's own message is only "URI malformed", naming neither the part nor the text.
    throw new Error(`${what} ${JSON.stringify(s)} is not valid percent-encoding (want % and two hex digits, forming UTF-8)`);
  }
}

/** The path parameters of `/inject/cluster/<id>/net/<network>` as values. @throws Error naming the path and the bad parameter */
export function injectPathValues(path: string): Record<string, unknown> | undefined {
  const rest = path.slice('/inject'.length).split('/').filter((s) => s !== '');
  if (rest.length === 0) return undefined;
  if (rest.length % 2 !== 0) throw new Error(`path ${path}: parameters come in pairs (/inject/cluster/<id>/net/<network>)`);
  const global: Record<string, unknown> = {};
  for (let i = 0; i < rest.length; i += 2) {
    const [k, v] = [rest[i]!, percentDecoded(rest[i + 1]!, `path ${path}: the value of parameter ${rest[i]!}`)];
    if (k === 'cluster') global['multiCluster'] = { clusterName: v };
    else if (k === 'net') global['network'] = v;
    else throw new Error(`path ${path}: unknown parameter ${k} (known: cluster, net)`);
  }
  return { global };
}

/** Builds the webhook handler. */
export function createWebhookHandler(deps: WebhookHandlerDeps): WebhookHandler {
  const { metrics, logger } = deps;
  const m = {
    requests: metrics.counter('sidecar_injection_requests_total'),
    success: metrics.counter('sidecar_injection_success_total'),
    skip: metrics.counter('sidecar_injection_skip_total'),
    failure: metrics.counter('sidecar_injection_failure_total'),
    time: metrics.histogram('sidecar_injection_time_seconds'),
    passed: metrics.counter('webhook_validation_passed'),
    failed: metrics.counter('webhook_validation_failed'),
    httpError: metrics.counter('webhook_validation_http_error'),
  };
  const kinds = new Set<string>(KIND_NAMES);

  const inject = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    m.requests.inc();
    const started = process.hrtime.bigint();
    let review: AdmissionRequest | undefined;
    try {
      const injector = deps.injector();
      if (!injector) throw new Error('the injector has no configuration yet');
      const values = injectPathValues(path);
      review = parseAdmissionReview(await readBody(req));
      const out = reviewInjection(review, injector, values ? { values } : {});
      if (out.outcome === 'success') m.success.inc();
      else if (out.outcome === 'skip') m.skip.inc();
      else {
        m.failure.inc();
        logger.warn({ uid: review.uid, message: out.response.status?.message }, 'injection refused');
      }
      send(res, 200, admissionReview(out.response));
    } catch (e) {
      m.failure.inc();
      const status = e instanceof BodyTooLargeError ? 413 : 400;
      logger.warn({ err: (e as Error).message }, 'injection request failed');
      send(res, e instanceof AdmissionReviewError || status === 413 ? status : 200, admissionReview(refuse(review?.uid ?? '', `${(e as Error).message}`, status)));
    } finally {
      m.time.observe(Number(process.hrtime.bigint() - started) / 1e9);
    }
  };

  const validate = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let review: AdmissionRequest;
    try {
      review = parseAdmissionReview(await readBody(req));
    } catch (e) {
      const status = e instanceof BodyTooLargeError ? 413 : 400;
      m.httpError.inc({ status: String(status) });
      send(res, status, admissionReview(refuse('', (e as Error).message, status)));
      return;
    }
    const { response, outcome } = reviewValidation(review);
    const kind = review.kind?.kind ?? '';
    const labels = { group: review.resource?.group ?? '', version: review.resource?.version ?? '', resource: kinds.has(kind) ? (review.resource?.resource ?? '') : 'unknown' };
    if (outcome.passed) m.passed.inc(labels);
    else {
      m.failed.inc({ ...labels, reason: outcome.reason });
      logger.info({ kind, namespace: review.namespace, reason: outcome.reason, message: response.status?.message }, 'resource refused');
    }
    send(res, 200, admissionReview(response));
  };

  return (req, res) => {
    const target = requestPath(req.url);
    if ('error' in target) {
      // NOTE: no route can serve a target that is no URL path; answer here rather than throw in the listener.
      send(res, 400, { error: target.error });
      return true;
    }
    const { path } = target;
    const isInject = path === '/inject' || path.startsWith('/inject/');
    const isValidate = path === '/validate' || path === '/validate/';
    if (!isInject && !isValidate) return false;
    if (isInject && !deps.injector()) {
      send(res, 404, { error: 'sidecar injection is off (INJECT_ENABLED=false)' });
      return true;
    }
    if (isValidate && deps.validation === false) return false;
    if (req.method !== 'POST') {
      if (isValidate) m.httpError.inc({ status: '405' });
      send(res, 405, { error: `${path} takes POST with an AdmissionReview` });
      return true;
    }
    void (isInject ? inject(req, res, path) : validate(req, res)).catch((e: unknown) => {
      logger.error({ err: (e as Error).message }, 'webhook handler failed');
      send(res, 500, { error: 'internal error' });
    });
    return true;
  };
}
