import { arr, atMostOneOf, bool, enumOf, map, num, obj, str } from '../../schema/builders.js';
import { CEL, celDuration } from '../shared/istio-cel.js';
import { policyTargetReference, policyTargetReferences } from '../shared/target-ref.js';
import { workloadSelector } from '../shared/workload-selector.js';

const providerRefs = arr(obj({ name: str({ minLength: 1 }) }, ['name']));
const workloadMode = enumOf(['CLIENT_AND_SERVER', 'CLIENT', 'SERVER']);

/** Istio's Tracing.CustomTag: one of literal, environment or header. */
export const customTag = obj(
  {
    literal: obj({ value: str({ minLength: 1 }) }, ['value']),
    environment: obj({ name: str({ minLength: 1 }), defaultValue: str() }, ['name']),
    header: obj({ name: str({ minLength: 1 }), defaultValue: str() }, ['name']),
  },
  [],
  { maxProperties: 1 },
);

/** Istio's Tracing. */
export const tracing = obj({
  match: obj({ mode: workloadMode }),
  providers: providerRefs,
  randomSamplingPercentage: num({ nullable: true, 'x-mesh-check': 'percent', 'x-mesh-crd': { minimum: 0, maximum: 100 } }),
  disableSpanReporting: bool({ nullable: true }),
  customTags: map(customTag),
  useRequestIdForTraceSampling: bool({ nullable: true }),
});

/** Standard metrics an override may select. */
export const METRIC_NAMES = [
  'ALL_METRICS', 'REQUEST_COUNT', 'REQUEST_DURATION', 'REQUEST_SIZE', 'RESPONSE_SIZE', 'TCP_OPENED_CONNECTIONS',
  'TCP_CLOSED_CONNECTIONS', 'TCP_SENT_BYTES', 'TCP_RECEIVED_BYTES', 'GRPC_REQUEST_MESSAGES', 'GRPC_RESPONSE_MESSAGES',
] as const;

/** Istio's MetricsOverrides. */
export const metricsOverrides = obj({
  match: obj({ metric: enumOf(METRIC_NAMES), customMetric: str({ minLength: 1 }), mode: workloadMode }, [], {
    'x-mesh-crd': atMostOneOf('metric', 'customMetric'),
  }),
  disabled: bool({ nullable: true }),
  tagOverrides: map(
    obj({ operation: enumOf(['UPSERT', 'REMOVE']), value: str() }, [], { 'x-kubernetes-validations': [CEL.tagOverrideUpsert, CEL.tagOverrideRemove] }),
  ),
});

/** Istio's Metrics. */
export const metrics = obj({ providers: providerRefs, overrides: arr(metricsOverrides), reportingInterval: celDuration() });

/** Istio's AccessLogging. */
export const accessLogging = obj({
  match: obj({ mode: workloadMode }),
  providers: providerRefs,
  disabled: bool({ nullable: true }),
  filter: obj({ expression: str() }),
});

/** The spec of a Telemetry (telemetry.mesh.io): tracing, metrics and access logging settings. */
export const telemetrySpec = obj(
  {
    selector: workloadSelector,
    targetRef: policyTargetReference,
    targetRefs: policyTargetReferences,
    tracing: arr(tracing),
    metrics: arr(metrics),
    accessLogging: arr(accessLogging),
  },
  [],
  { 'x-kubernetes-validations': [CEL.targetRefsOrSelector] },
);
