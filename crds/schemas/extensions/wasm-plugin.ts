import { arr, enumOf, freeForm, int, obj, portNumber, str, withRules } from '../../schema/builders.js';
import { CEL } from '../shared/istio-cel.js';
import { policyTargetReference, policyTargetReferences } from '../shared/target-ref.js';
import { workloadSelector } from '../shared/workload-selector.js';

/** Istio's VmConfig: environment variables for the Wasm VM. */
export const vmConfig = obj({
  env: {
    ...arr(
      obj({ name: str({ minLength: 1, maxLength: 256 }), value: str({ maxLength: 2048 }), valueFrom: enumOf(['INLINE', 'HOST']) }, ['name'], {
        'x-kubernetes-validations': [CEL.wasmEnvValue],
      }),
      { maxItems: 256 },
    ),
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
  },
});

/** Istio's WasmPluginTrafficSelector. */
export const wasmPluginTrafficSelector = obj({
  mode: enumOf(['UNDEFINED', 'CLIENT', 'SERVER', 'CLIENT_AND_SERVER']),
  ports: { ...arr(obj({ number: portNumber() }, ['number'])), 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['number'] },
});

/** The spec of a WasmPlugin (extensions.mesh.io): a WebAssembly filter for data-plane proxies. */
export const wasmPluginSpec = obj(
  {
    selector: workloadSelector,
    targetRef: policyTargetReference,
    targetRefs: policyTargetReferences,
    url: withRules(str({ minLength: 1 }), CEL.wasmUrlScheme),
    sha256: str({ pattern: '(^$|^[a-f0-9]{64}$)' }),
    imagePullPolicy: enumOf(['UNSPECIFIED_POLICY', 'IfNotPresent', 'Always']),
    imagePullSecret: str({ minLength: 1, maxLength: 253 }),
    pluginConfig: freeForm({ description: 'The configuration passed to the plugin (free-form).' }),
    pluginName: str({ minLength: 1, maxLength: 256 }),
    phase: enumOf(['UNSPECIFIED_PHASE', 'AUTHN', 'AUTHZ', 'STATS']),
    priority: int({ format: 'int32', nullable: true }),
    failStrategy: enumOf(['FAIL_CLOSE', 'FAIL_OPEN']),
    vmConfig,
    match: arr(wasmPluginTrafficSelector),
    type: enumOf(['UNSPECIFIED_PLUGIN_TYPE', 'HTTP', 'NETWORK']),
  },
  ['url'],
  { 'x-kubernetes-validations': [CEL.targetRefsOrSelector] },
);
