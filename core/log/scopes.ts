import type { ProgramName } from '../program.js';

/**
 * The log scopes of each program, as the spec lists them (`all` is the pseudo-scope for every scope).
 * meshctl has no logging flags in the spec; its list is a small one of the scopes its commands use
 * (install, analysis, validation, orchestrator access, xDS client).
 */
export const SCOPES = {
  operator: [
    'ads', 'all', 'analysis', 'authn', 'ca', 'controllers', 'controlleruntime', 'default', 'delta', 'file',
    'gateway', 'installer', 'klog', 'orch', 'model', 'monitoring', 'patch', 'processing', 'retry', 'security',
    'serviceentry', 'spiffe', 'status', 'tpath', 'translator', 'trustBundle', 'util', 'validation', 'wle',
  ],
  'pilot-discovery': [
    'ads', 'adsc', 'all', 'analysis', 'authn', 'authorization', 'ca', 'controllers', 'default', 'delta',
    'deltaadsc', 'file', 'gateway', 'grpcgen', 'ingress status', 'klog', 'orch', 'model', 'monitor',
    'monitoring', 'pkica', 'pkira', 'processing', 'retry', 'rootcertrotator', 'secretcontroller', 'security',
    'serverca', 'serviceentry', 'spiffe', 'status', 'trustBundle', 'validation', 'validationController',
    'validationServer', 'wasm', 'wle',
  ],
  'pilot-agent': [
    'ads', 'all', 'authn', 'ca', 'cache', 'caclient', 'controllers', 'default', 'delta', 'dns', 'cloudcred',
    'cloudca', 'cloudcas', 'healthcheck', 'iptables', 'klog', 'mockcred', 'model', 'monitoring', 'sds',
    'security', 'spiffe', 'stsclient', 'stsserver', 'token', 'trustBundle', 'validation', 'wasm', 'wle',
    'xdsproxy',
  ],
  meshctl: ['adsc', 'all', 'analysis', 'default', 'installer', 'klog', 'orch', 'translator', 'util', 'validation'],
} as const satisfies Record<ProgramName, readonly string[]>;
