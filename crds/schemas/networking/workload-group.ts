import { arr, int, map, obj, str } from '../../schema/builders.js';
import { workloadEntrySpec } from './workload-entry.js';

const seconds = int({ format: 'int32', minimum: 0 });

/** Istio's ReadinessProbe for WorkloadGroup: one of httpGet, tcpSocket, exec or grpc. */
export const readinessProbe = obj({
  initialDelaySeconds: seconds,
  timeoutSeconds: seconds,
  periodSeconds: seconds,
  successThreshold: seconds,
  failureThreshold: seconds,
  httpGet: obj(
    {
      path: str(),
      port: int({ minimum: 0, maximum: 4294967295 }),
      host: str(),
      scheme: str(),
      httpHeaders: arr(obj({ name: str(), value: str() })),
    },
    ['port'],
  ),
  tcpSocket: obj({ host: str(), port: int({ minimum: 0, maximum: 4294967295 }) }, ['port']),
  exec: obj({ command: arr(str()) }, ['command']),
  grpc: obj({ port: int({ format: 'int32' }), service: str() }),
});

/** The spec of a WorkloadGroup (networking.mesh.io): a template for auto-registered WorkloadEntries. */
export const workloadGroupSpec = obj(
  {
    metadata: obj({ labels: map(str()), annotations: map(str()) }),
    template: workloadEntrySpec,
    probe: readinessProbe,
  },
  ['template'],
);
