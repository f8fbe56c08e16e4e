import { int, map, obj, str } from '../../schema/builders.js';
import { workloadSelector } from '../shared/workload-selector.js';

/** The spec of a ProxyConfig (networking.mesh.io v1beta1): per-workload proxy settings. */
export const proxyConfigSpec = obj({
  selector: workloadSelector,
  concurrency: int({ format: 'int32', nullable: true, minimum: 0 }),
  environmentVariables: map(str({ maxLength: 2048 })),
  image: obj({ imageType: str({ description: 'default, debug or distroless.' }) }),
});
