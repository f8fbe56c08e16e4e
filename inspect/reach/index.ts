// The reach layer: from a `[<type>/]<name>[.<namespace>]` target to a pod, and streams and HTTP to its ports.
export { ReachError } from './reach-error.js';
export { parsePodTarget, dotted, TARGET_KINDS, type TargetKind, type PodTarget, type PodRef } from './pod-target.js';
export { resolvePod, resolvePodBySelector, pickRunningPod, selectorQuery, type OrchReader, type PodObject, type ResolvedPod } from './pod-resolver.js';
export { directDialer, portForwardDialer, type PodDialer, type PodAddressMap } from './pod-dialer.js';
export { podHttpRequest, podHttpGet, DEFAULT_POD_HTTP_TIMEOUT_MS, type PodHttpRequest, type PodHttpResponse } from './pod-http.js';
