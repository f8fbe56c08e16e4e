/**
 * The grpc-js service definition of envoy.service.discovery.v3.AggregatedDiscoveryService. Messages pass
 * as raw bytes: requests are decoded by the stream handlers (so a malformed one ends the stream with
 * INVALID_ARGUMENT), responses are encoded by `wire.ts` from already-encoded resources.
 */
import type { ServiceDefinition } from '@grpc/grpc-js';

const identity = (b: Buffer): Buffer => b;
const bytesIn = (b: Buffer): Uint8Array => b;

/** Full method paths, for clients and tests. */
export const ADS_METHODS = {
  stream: '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources',
  delta: '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources',
} as const;

/** The ADS service with byte-level (de)serialization. */
export const ADS_SERVICE: ServiceDefinition = {
  StreamAggregatedResources: {
    path: ADS_METHODS.stream,
    requestStream: true,
    responseStream: true,
    requestSerialize: identity,
    requestDeserialize: bytesIn,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
  DeltaAggregatedResources: {
    path: ADS_METHODS.delta,
    requestStream: true,
    responseStream: true,
    requestSerialize: identity,
    requestDeserialize: bytesIn,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};
