import { bool, duration, enumOf, int, obj, uint32 } from '../../schema/builders.js';

/** Istio's ConnectionPoolSettings (TCP and HTTP limits), used by DestinationRule and Sidecar. */
export const connectionPoolSettings = obj({
  tcp: obj({
    maxConnections: int({ format: 'int32' }),
    connectTimeout: duration(),
    tcpKeepalive: obj({ probes: uint32(), time: duration(), interval: duration() }),
    maxConnectionDuration: duration(),
    idleTimeout: duration(),
  }),
  http: obj({
    http1MaxPendingRequests: int({ format: 'int32' }),
    http2MaxRequests: int({ format: 'int32' }),
    maxRequestsPerConnection: int({ format: 'int32' }),
    maxRetries: int({ format: 'int32' }),
    idleTimeout: duration(),
    h2UpgradePolicy: enumOf(['DEFAULT', 'DO_NOT_UPGRADE', 'UPGRADE']),
    useClientProtocol: bool(),
    maxConcurrentStreams: int({ format: 'int32' }),
    /** HTTP/2 PING frames on upstream connections. */
    http2KeepAlive: obj({ interval: duration(), timeout: duration() }),
  }),
});
