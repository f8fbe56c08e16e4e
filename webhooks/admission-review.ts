/**
 * AdmissionReview v1 in, AdmissionReview v1 out: the injection answer (a JSONPatch) and the validation
 * answer (allowed, or refused with the invalid fields named). Pure functions over parsed JSON; the HTTP
 * side and the metrics are in webhook-handler.ts.
 */
import { objectLimitError, validateConfig } from '../crds/index.js';
import { createPatch } from './json-patch.js';
import { isObject, type JsonObject } from './pod-overlay.js';
import type { InjectOptions, SidecarInjector } from './sidecar-injector.js';

/** The `request` of an AdmissionReview (the fields the webhooks read). */
export interface AdmissionRequest {
  readonly uid: string;
  readonly kind?: { readonly group?: string; readonly version?: string; readonly kind?: string };
  readonly resource?: { readonly group?: string; readonly version?: string; readonly resource?: string };
  readonly namespace?: string;
  readonly operation?: string;
  readonly object?: unknown;
}

/** The `response` of an AdmissionReview. */
export interface AdmissionResponse {
  readonly uid: string;
  readonly allowed: boolean;
  readonly patchType?: 'JSONPatch';
  /** base64 of the JSON Patch. */
  readonly patch?: string;
  /** metav1.Status: the JSON name is `status` in admission.k8s.io/v1. */
  readonly status?: { readonly code?: number; readonly message: string };
  readonly warnings?: readonly string[];
}

/** Thrown for a body that is not an AdmissionReview v1 with a request. */
export class AdmissionReviewError extends Error {
  override readonly name = 'AdmissionReviewError';
}

/** A field's value for a message: JSON, or "missing" (`JSON.stringify(undefined)` would print "undefined"). */
function shown(v: unknown): string {
  return v === undefined ? 'missing' : (JSON.stringify(v) ?? String(v));
}

/** Parses an AdmissionReview body. @throws AdmissionReviewError naming what is wrong */
export function parseAdmissionReview(body: string): AdmissionRequest {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (e) {
    throw new AdmissionReviewError(`the body is not JSON: ${(e as Error).message}`);
  }
  if (!isObject(raw)) throw new AdmissionReviewError('the body is not an AdmissionReview object');
  if (raw['kind'] !== 'AdmissionReview') throw new AdmissionReviewError(`kind is ${shown(raw['kind'])}, want "AdmissionReview"`);
  if (raw['apiVersion'] !== 'admission.k8s.io/v1' && raw['apiVersion'] !== 'admission.k8s.io/v1beta1') throw new AdmissionReviewError(`apiVersion ${raw['apiVersion'] === undefined ? 'is missing, want' : `${shown(raw['apiVersion'])} is not`} admission.k8s.io/v1`);
  const req = raw['request'];
  if (!isObject(req)) throw new AdmissionReviewError('the AdmissionReview has no request');
  if (typeof req['uid'] !== 'string' || req['uid'] === '') throw new AdmissionReviewError('request.uid is missing');
  return req as unknown as AdmissionRequest;
}

/** Wraps a response in an AdmissionReview v1. */
export function admissionReview(response: AdmissionResponse): JsonObject {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response };
}

/** A refusal with `message` (HTTP-like `code` in `status`). */
export function refuse(uid: string, message: string, code = 400): AdmissionResponse {
  return { uid, allowed: false, status: { code, message } };
}

/** What an injection review came to, for the metrics. */
export type InjectOutcome = 'success' | 'skip' | 'failure';

/**
 * Answers an injection request: a JSONPatch adding the sidecar, an allowed answer without a patch for a pod
 * the policy skips, or a refusal naming what failed (not a pod, no object, a template error).
 */
export function reviewInjection(req: AdmissionRequest, injector: SidecarInjector, options: Omit<InjectOptions, 'workload'> = {}): { response: AdmissionResponse; outcome: InjectOutcome; reason?: string } {
  const kind = req.kind?.kind;
  if (kind !== undefined && (kind !== 'Pod' || (req.kind?.group ?? '') !== '')) {
    return { response: refuse(req.uid, `injection applies to core/v1 Pods, not ${req.kind?.group ? `${req.kind.group}/` : ''}${kind}`), outcome: 'failure' };
  }
  const pod = req.object;
  if (!isObject(pod)) return { response: refuse(req.uid, 'request.object is missing or not a Pod object'), outcome: 'failure' };
  if (pod['kind'] !== undefined && pod['kind'] !== 'Pod') return { response: refuse(req.uid, `request.object has kind ${shown(pod['kind'])}, not "Pod"`), outcome: 'failure' };
  const meta = isObject(pod['metadata']) ? pod['metadata'] : {};
  const namespace = req.namespace ?? (typeof meta['namespace'] === 'string' ? meta['namespace'] : 'default');
  let result;
  try {
    result = injector.inject(pod, namespace, options);
  } catch (e) {
    return { response: refuse(req.uid, `injection failed: ${(e as Error).message}`, 500), outcome: 'failure' };
  }
  if (!result.injected) return { response: { uid: req.uid, allowed: true }, outcome: 'skip', reason: result.decision.reason };
  const patch = createPatch(pod, result.pod);
  return { response: { uid: req.uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') }, outcome: 'success' };
}

/** What a validation review came to, for the metrics (closed set). */
export type ValidateOutcome = { readonly passed: true } | { readonly passed: false; readonly reason: 'invalid_resource' | 'unknown_kind' | 'no_object' };

/**
 * Answers a validation request for a mesh.io resource with the validators meshd uses for files. DELETE is
 * always allowed; a refusal lists every invalid field (`spec.http[0].route: ...`).
 */
export function reviewValidation(req: AdmissionRequest): { response: AdmissionResponse; outcome: ValidateOutcome } {
  if (req.operation === 'DELETE') return { response: { uid: req.uid, allowed: true }, outcome: { passed: true } };
  const obj = req.object;
  if (!isObject(obj)) return { response: refuse(req.uid, 'request.object is missing or not an object'), outcome: { passed: false, reason: 'no_object' } };
  // NOTE: the same limits as meshd's file and CRD sources (crds/ yaml-limits), before any schema walk.
  const tooBig = objectLimitError(obj);
  if (tooBig) return { response: refuse(req.uid, `configuration is invalid: ${tooBig}`), outcome: { passed: false, reason: 'invalid_resource' } };
  const result = validateConfig(obj);
  const warnings = result.warnings.map((w) => (w.path ? `${w.path}: ${w.message}` : w.message));
  if (result.ok) return { response: { uid: req.uid, allowed: true, ...(warnings.length > 0 ? { warnings } : {}) }, outcome: { passed: true } };
  const unknownKind = result.errors.some((e) => e.path === 'kind' || e.path === 'apiVersion');
  const errors = result.errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message));
  return {
    response: { ...refuse(req.uid, `configuration is invalid: ${errors.join('; ')}`), ...(warnings.length > 0 ? { warnings } : {}) },
    outcome: { passed: false, reason: unknownKind ? 'unknown_kind' : 'invalid_resource' },
  };
}
