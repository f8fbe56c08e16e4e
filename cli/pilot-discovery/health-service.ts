/**
 * The standard gRPC health service, `grpc.health.v1.Health` (Check and Watch), on a grpc-js server.
 * Messages are encoded with protobufjs from an inline descriptor of grpc/health/v1/health.proto.
 */
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';

/** The serving states of grpc.health.v1.HealthCheckResponse. */
export const SERVING_STATUS = { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 } as const;
export type ServingStatus = keyof typeof SERVING_STATUS;

const root = protobuf.Root.fromJSON({
  nested: {
    grpc: { nested: { health: { nested: { v1: { nested: {
      HealthCheckRequest: { fields: { service: { type: 'string', id: 1 } } },
      HealthCheckResponse: {
        fields: { status: { type: 'ServingStatus', id: 1 } },
        nested: { ServingStatus: { values: SERVING_STATUS } },
      },
    } } } } } },
  },
});
const Request = root.lookupType('grpc.health.v1.HealthCheckRequest');
const Response = root.lookupType('grpc.health.v1.HealthCheckResponse');

/** A health check request. */
export interface HealthCheckRequest {
  service: string;
}
/** A health check response (`status` as its enum name). */
export interface HealthCheckResponse {
  status: ServingStatus;
}

/** Encoders of the two messages, for servers and for clients in tests. */
export const HEALTH_CODEC = {
  encodeRequest: (m: HealthCheckRequest): Buffer => Buffer.from(Request.encode(Request.create(m)).finish()),
  decodeRequest: (b: Buffer): HealthCheckRequest => Request.toObject(Request.decode(b), { defaults: true }) as HealthCheckRequest,
  encodeResponse: (m: HealthCheckResponse): Buffer => Buffer.from(Response.encode(Response.fromObject(m)).finish()),
  decodeResponse: (b: Buffer): HealthCheckResponse => Response.toObject(Response.decode(b), { enums: String, defaults: true }) as HealthCheckResponse,
};

/** The service's method paths. */
export const HEALTH_CHECK_PATH = '/grpc.health.v1.Health/Check';
export const HEALTH_WATCH_PATH = '/grpc.health.v1.Health/Watch';

const method = (path: string, originalName: string, responseStream: boolean): grpc.MethodDefinition<HealthCheckRequest, HealthCheckResponse> => ({
  path,
  originalName,
  requestStream: false,
  responseStream,
  requestSerialize: HEALTH_CODEC.encodeRequest,
  requestDeserialize: HEALTH_CODEC.decodeRequest,
  responseSerialize: HEALTH_CODEC.encodeResponse,
  responseDeserialize: HEALTH_CODEC.decodeResponse,
});

/** The grpc-js definition of grpc.health.v1.Health. */
export const HEALTH_SERVICE_DEFINITION: grpc.ServiceDefinition = {
  Check: method(HEALTH_CHECK_PATH, 'check', false),
  Watch: method(HEALTH_WATCH_PATH, 'watch', true),
};

/**
 * Serving states per service name (`''` is the whole server) and the handlers that report them.
 * `Watch` streams the current state, then every change, until the client cancels or `shutdown()`.
 */
export class HealthService {
  readonly #status = new Map<string, ServingStatus>();
  readonly #watchers = new Set<{ service: string; call: grpc.ServerWritableStream<HealthCheckRequest, HealthCheckResponse> }>();

  constructor(initial: Readonly<Record<string, ServingStatus>> = { '': 'SERVING' }) {
    for (const [name, status] of Object.entries(initial)) this.#status.set(name, status);
  }

  /** Sets the state of `service` and tells its watchers. */
  setStatus(service: string, status: ServingStatus): void {
    this.#status.set(service, status);
    for (const w of this.#watchers) if (w.service === service) w.call.write({ status });
  }

  /** Marks every service NOT_SERVING and ends every Watch stream (for shutdown). */
  shutdown(): void {
    for (const name of this.#status.keys()) this.setStatus(name, 'NOT_SERVING');
    for (const w of this.#watchers) w.call.end();
    this.#watchers.clear();
  }

  /** The handlers to register with `server.addService(HEALTH_SERVICE_DEFINITION, ...)`. */
  handlers(): grpc.UntypedServiceImplementation {
    return {
      Check: (call: grpc.ServerUnaryCall<HealthCheckRequest, HealthCheckResponse>, callback: grpc.sendUnaryData<HealthCheckResponse>) => {
        const status = this.#status.get(call.request.service);
        if (status === undefined) callback({ code: grpc.status.NOT_FOUND, details: `unknown service "${call.request.service}"` });
        else callback(null, { status });
      },
      Watch: (call: grpc.ServerWritableStream<HealthCheckRequest, HealthCheckResponse>) => {
        const watcher = { service: call.request.service, call };
        this.#watchers.add(watcher);
        call.write({ status: this.#status.get(call.request.service) ?? 'SERVICE_UNKNOWN' });
        call.on('cancelled', () => this.#watchers.delete(watcher));
      },
    };
  }
}
