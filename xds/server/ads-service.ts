/**
 * The grpc-js service definition of envoy.service.discovery.v3.AggregatedDiscoveryService. Messages pass
 * as raw bytes: requests are decoded by the stream handlers (so a malformed one ends the stream with
 * INVALID_ARGUMENT), responses are encoded by `wire.ts` from already-encoded resources.
 */
import type { ServiceDefinition } from '@grpc/grpc-js';
import type { EncodedResponse } from './wire.js';

const identity = (b: Buffer): Buffer => b;
const bytesIn = (b: Buffer): Uint8Array => b;

/**
 * Reused by every response: grpc-js copies what `serializeResponse` returns into its frame before it returns.
 * NOTE: once framed-send.ts is installed (the ADS server does it), grpc-js lays responses out in their frames
 * and calls this only where that could not be installed.
 */
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * Lays a response out in the scratch buffer and returns a view of it. NOTE: grpc-js's `serializeMessage`
 * copies the serialized bytes into the message frame synchronously (server-interceptors.js), so the view is
 * read before the next response reuses the buffer; ads-service.test.ts holds a real stream of back-to-back
 * responses to it.
 */
export function serializeResponse(r: EncodedResponse): Buffer {
  if (scratch.length < r.length) scratch = Buffer.allocUnsafe(Math.max(r.length, 2 * scratch.length));
  r.writeInto(scratch);
  return scratch.subarray(0, r.length);
}

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
    responseSerialize: serializeResponse,
    responseDeserialize: identity,
  },
  DeltaAggregatedResources: {
    path: ADS_METHODS.delta,
    requestStream: true,
    responseStream: true,
    requestSerialize: identity,
    requestDeserialize: bytesIn,
    responseSerialize: serializeResponse,
    responseDeserialize: identity,
  },
};
