import type { KindName } from '../kinds.js';
import type { SpecOf } from '../types.js';
import type { IssueCollector } from './issue.js';
import { validateAuthorizationPolicy } from './semantic/authorization-policy.js';
import { validateDestinationRule } from './semantic/destination-rule.js';
import { validateServiceEntry } from './semantic/service-entry.js';
import { validateVirtualService } from './semantic/virtual-service.js';
import { validateWorkloadEntry } from './semantic/workload-entry.js';

/** A kind's semantic checks: run on a spec that already passed the schema. */
export type SemanticValidator<K extends KindName> = (spec: SpecOf<K>, issues: IssueCollector, path: string) => void;

/** The semantic checks of every kind (beyond the generic `x-mesh-check` ones). */
export const SEMANTIC_VALIDATORS: { readonly [K in KindName]: SemanticValidator<K> } = {
  VirtualService: validateVirtualService,
  DestinationRule: validateDestinationRule,
  ServiceEntry: validateServiceEntry,
  WorkloadEntry: (spec, issues, path) => validateWorkloadEntry(spec, issues, path),
  AuthorizationPolicy: validateAuthorizationPolicy,
};
