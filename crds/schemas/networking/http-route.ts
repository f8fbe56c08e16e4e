import { arr, atMostOneOf, bool, enumOf, int, map, obj, str, uint32 } from '../../schema/builders.js';
import { destination } from '../shared/destination.js';
import { celDuration } from '../shared/istio-cel.js';
import { percent } from '../shared/percent.js';
import { stringMatch } from '../shared/string-match.js';

/** Header add/set/remove operations. */
export const headerOperations = obj({ set: map(str()), add: map(str()), remove: arr(str()) });

/** Request and response header manipulation. */
export const headers = obj({ request: headerOperations, response: headerOperations });

/** Istio's HTTPMatchRequest: conditions a request must meet for a route to apply. */
export const httpMatchRequest = obj({
  name: str(),
  uri: stringMatch,
  scheme: stringMatch,
  method: stringMatch,
  authority: stringMatch,
  headers: map(stringMatch),
  port: uint32(),
  sourceLabels: map(str()),
  gateways: arr(str()),
  queryParams: map(stringMatch),
  ignoreUriCase: bool(),
  withoutHeaders: map(stringMatch),
  sourceNamespace: str(),
  statPrefix: str(),
});

/** Istio's HTTPRouteDestination: a weighted destination with header manipulation. */
export const httpRouteDestination = obj(
  { destination, weight: int({ format: 'int32' }), headers },
  ['destination'],
);

/** Istio's HTTPRedirect. */
export const httpRedirect = obj(
  {
    uri: str(),
    authority: str(),
    port: uint32(),
    derivePort: enumOf(['FROM_PROTOCOL_DEFAULT', 'FROM_REQUEST_PORT']),
    scheme: str(),
    redirectCode: uint32(),
  },
  [],
  { 'x-mesh-crd': atMostOneOf('port', 'derivePort') },
);

/** Istio's HTTPDirectResponse. */
export const httpDirectResponse = obj(
  { status: uint32(), body: obj({ string: str(), bytes: str({ format: 'binary' }) }, [], { maxProperties: 1 }) },
  ['status'],
);

/** Istio's HTTPRewrite. */
export const httpRewrite = obj({
  uri: str(),
  authority: str(),
  uriRegexRewrite: obj({ match: str({ 'x-mesh-check': 'regex' }), rewrite: str() }),
});

/** Istio's HTTPRetry. */
export const httpRetry = obj({
  attempts: int({ format: 'int32' }),
  perTryTimeout: celDuration(),
  retryOn: str(),
  retryRemoteLocalities: bool({ nullable: true }),
  retryIgnorePreviousHosts: bool({ nullable: true }),
  backoff: celDuration(),
});

/** Istio's HTTPFaultInjection: delays and aborts. */
export const httpFaultInjection = obj({
  delay: obj(
    {
      fixedDelay: celDuration(),
      exponentialDelay: celDuration(),
      percentage: percent,
      percent: int({ format: 'int32' }),
    },
    [],
    { 'x-mesh-crd': atMostOneOf('fixedDelay', 'exponentialDelay') },
  ),
  abort: obj(
    {
      httpStatus: int({ format: 'int32' }),
      grpcStatus: str(),
      http2Error: str(),
      percentage: percent,
    },
    [],
    { 'x-mesh-crd': atMostOneOf('httpStatus', 'grpcStatus', 'http2Error') },
  ),
});

/** Istio's HTTPMirrorPolicy. */
export const httpMirrorPolicy = obj({ destination, percentage: percent }, ['destination']);

/** Istio's CorsPolicy. */
export const corsPolicy = obj({
  allowOrigins: arr(stringMatch),
  allowMethods: arr(str()),
  allowHeaders: arr(str()),
  exposeHeaders: arr(str()),
  maxAge: celDuration(),
  allowCredentials: bool({ nullable: true }),
  unmatchedPreflights: enumOf(['UNSPECIFIED', 'FORWARD', 'IGNORE']),
});

/** Istio's HTTPRoute: match conditions and the action for HTTP/1.1, HTTP/2 and gRPC traffic. */
export const httpRoute = obj({
  name: str(),
  match: arr(httpMatchRequest),
  route: arr(httpRouteDestination),
  redirect: httpRedirect,
  directResponse: httpDirectResponse,
  delegate: obj({ name: str(), namespace: str() }),
  rewrite: httpRewrite,
  timeout: celDuration(),
  retries: httpRetry,
  fault: httpFaultInjection,
  mirror: destination,
  mirrors: arr(httpMirrorPolicy),
  mirrorPercentage: percent,
  corsPolicy,
  headers,
});
