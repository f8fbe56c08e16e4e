import { bool, duration, enumOf, int, obj, uint32 } from '../../schema/builders.js';
import { celDuration } from './istio-cel.js';

/** Istio's ConnectionPoolSettings (TCP and HTTP limits), used by DestinationRule and Sidecar. */
export const connectionPoolSettings = obj({
  tcp: obj({
    maxConnections: int({ format: 'int32' }),
    connectTimeout: celDuration(),
    tcpKeepalive: obj({ probes: uint32(), time: celDuration(), interval: celDuration() }),
    maxConnectionDuration: celDuration(),
    // NOTE: Istio's CRD has no 1ms rule on tcp.idleTimeout (meshd's check still refuses < 1ms).
    idleTimeout: duration(),
  }),
  http: obj({
    http1MaxPendingRequests: int({ format: 'int32' }),
    http2MaxRequests: int({ format: 'int32' }),
    maxRequestsPerConnection: int({ format: 'int32' }),
    maxRetries: int({ format: 'int32' }),
    idleTimeout: celDuration(),
    h2UpgradePolicy: enumOf(['DEFAULT', 'DO_NOT_UPGRADE', 'UPGRADE']),
    useClientProtocol: bool(),
    maxConcurrentStreams: int({ format: 'int32' }),
    /** HTTP/2 PING frames on upstream connections. */
    http2KeepAlive: obj({ interval: celDuration(), timeout: celDuration() }),
  }),
});
