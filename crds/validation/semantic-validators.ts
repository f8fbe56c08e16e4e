import type { KindName } from '../kinds.js';
import type { SpecOf } from '../types.js';
import type { IssueCollector } from './issue.js';
import { validateAuthorizationPolicy } from './semantic/authorization-policy.js';
import { validateDestinationRule } from './semantic/destination-rule.js';
import { validateServiceEntry } from './semantic/service-entry.js';
import { validateVirtualService } from './semantic/virtual-service.js';
import { validateWorkloadEntry } from './semantic/workload-entry.js';
import { validateGateway } from './semantic/gateway.js';
import { validateSidecar } from './semantic/sidecar.js';
import { validateWorkloadGroup } from './semantic/workload-group.js';
import { validateEnvoyFilter } from './semantic/envoy-filter.js';
import { validateProxyConfig } from './semantic/proxy-config.js';
import { validatePeerAuthentication } from './semantic/peer-authentication.js';
import { validateRequestAuthentication } from './semantic/request-authentication.js';
import { validateTelemetry } from './semantic/telemetry.js';
import { validateWasmPlugin } from './semantic/wasm-plugin.js';
import { validateMeshOperator } from './semantic/mesh-operator.js';

/** A kind's semantic checks: run on a spec that already passed the schema; `namespace` is the object's, when it has one. */
export type SemanticValidator<K extends KindName> = (spec: SpecOf<K>, issues: IssueCollector, path: string, namespace?: string) => void;

/** The semantic checks of every kind (beyond the generic `x-mesh-check` ones). */
export const SEMANTIC_VALIDATORS: { readonly [K in KindName]: SemanticValidator<K> } = {
  VirtualService: validateVirtualService,
  DestinationRule: (spec, issues, path, namespace) => validateDestinationRule(spec, issues, path, namespace),
  ServiceEntry: validateServiceEntry,
  WorkloadEntry: (spec, issues, path) => validateWorkloadEntry(spec, issues, path),
  Gateway: validateGateway,
  Sidecar: validateSidecar,
  WorkloadGroup: validateWorkloadGroup,
  EnvoyFilter: validateEnvoyFilter,
  ProxyConfig: validateProxyConfig,
  AuthorizationPolicy: validateAuthorizationPolicy,
  PeerAuthentication: validatePeerAuthentication,
  RequestAuthentication: validateRequestAuthentication,
  Telemetry: validateTelemetry,
  WasmPlugin: validateWasmPlugin,
  MeshOperator: validateMeshOperator,
};
