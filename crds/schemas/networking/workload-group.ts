import { arr, atMostOneOf, int, map, obj, str, withRules } from '../../schema/builders.js';
import { CEL } from '../shared/istio-cel.js';
import { workloadEntryTemplate } from './workload-entry.js';

const seconds = int({ format: 'int32', minimum: 0 });
const probePort = withRules(int({ minimum: 0, maximum: 4294967295 }), CEL.port);

/** Istio's ReadinessProbe for WorkloadGroup: one of httpGet, tcpSocket, exec or grpc. */
export const readinessProbe = obj(
  {
    initialDelaySeconds: seconds,
    timeoutSeconds: seconds,
    periodSeconds: seconds,
    successThreshold: seconds,
    failureThreshold: seconds,
    httpGet: obj(
      {
        path: str(),
        port: probePort,
        host: str(),
        scheme: withRules(str(), CEL.probeScheme),
        httpHeaders: arr(obj({ name: str({ pattern: '^[-_A-Za-z0-9]+$' }), value: str() })),
      },
      ['port'],
    ),
    tcpSocket: obj({ host: str(), port: probePort }, ['port']),
    exec: obj({ command: arr(str({ minLength: 1 })) }, ['command']),
    grpc: obj({ port: probePort, service: str() }),
  },
  [],
  { 'x-mesh-crd': atMostOneOf('httpGet', 'tcpSocket', 'exec', 'grpc') },
);

/** The spec of a WorkloadGroup (networking.mesh.io): a template for auto-registered WorkloadEntries. */
export const workloadGroupSpec = obj(
  {
    metadata: obj({ labels: map(str(), { maxProperties: 256 }), annotations: map(str(), { maxProperties: 256 }) }),
    template: workloadEntryTemplate,
    probe: readinessProbe,
  },
  ['template'],
);
