import type { EnvVarDeclaration } from './env-var-declaration.js';

/**
 * Variables that the platform sets and the spec does not list: how a program finds its orchestrator
 * (as every Kubernetes client does). Marked `platform: true`.
 */
export const PLATFORM_ENV_VARS = [
  {
    name: 'KUBECONFIG',
    type: 'String',
    default: null,
    programs: ['pilot-discovery', 'operator', 'meshctl'],
    description: 'Orchestrator config files (paths joined by the path-list separator), used when --orchconfig is not given.',
    platform: true,
  },
  {
    name: 'KUBERNETES_SERVICE_HOST',
    type: 'String',
    default: null,
    programs: ['pilot-discovery', 'operator'],
    description: "The orchestrator API server's in-cluster address, set in every pod (ORCH_SERVICE_HOST wins when both are set).",
    platform: true,
  },
  {
    name: 'KUBERNETES_SERVICE_PORT',
    type: 'String',
    default: null,
    programs: ['pilot-discovery', 'operator'],
    description: "The orchestrator API server's in-cluster port, set in every pod.",
    platform: true,
  },
] as const satisfies readonly EnvVarDeclaration[];
