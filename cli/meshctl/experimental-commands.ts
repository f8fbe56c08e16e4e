/** `meshctl experimental` (alias x): commands not ready for production. */
import { command, flag, lazyRun, type Command, type Flag } from '../framework/index.js';
import type { MeshctlDeps } from './meshctl-reach.js';
import { notBuilt } from '../common/not-built.js';
import { configListCommand } from './config-list-command.js';
import { replayCommand } from './replay-command.js';
import { simulateCommand } from './simulate-command.js';
import { translateCommand } from './translate-command.js';

const TARGET = { usage: '[<type>/]<name>[.<namespace>]', max: 1 } as const;
const revision = (): Flag => flag.string('revision', '', 'The revision to use', { short: 'r' });
const serviceAccount = (): Flag => flag.string('service-account', '', 'Name of the service account the waypoint applies to', { short: 's' });
const ignoreUnmeshed = (): Flag => flag.bool('ignoreUnmeshed', false, 'Suppress warnings for unmeshed pods');

function waypoint(): Command {
  return command({
    name: 'waypoint',
    short: 'Manage waypoint configuration',
    commands: [
      command({
        name: 'apply',
        short: 'Apply a waypoint configuration',
        flags: [revision(), serviceAccount(), flag.bool('wait', false, 'Wait for the waypoint to be ready', { short: 'w' })],
        run: notBuilt,
      }),
      command({
        name: 'delete',
        short: 'Delete a waypoint configuration',
        args: { usage: '[<name>...]' },
        flags: [flag.bool('all', false, 'Delete all waypoints in the namespace'), serviceAccount()],
        run: notBuilt,
      }),
      command({ name: 'generate', short: 'Generate a waypoint configuration', flags: [revision(), serviceAccount()], run: notBuilt }),
      command({
        name: 'list',
        short: 'List managed waypoint configurations',
        flags: [flag.bool('all-namespaces', false, 'List all waypoints in all namespaces', { short: 'A' }), serviceAccount()],
        run: notBuilt,
      }),
    ],
  });
}

function workload(): Command {
  const ns = (): Flag => flag.string('namespace', '', 'Namespace of the workload', { short: 'n' });
  return command({
    name: 'workload',
    short: 'Commands to assist in configuring and deploying workloads running on VMs and other non-orchestrator environments',
    commands: [
      command({
        name: 'entry',
        short: 'Commands dealing with WorkloadEntry resources',
        commands: [
          command({
            name: 'configure',
            short: 'Generates all the required configuration files for workload instance on a VM or non-orchestrator environment',
            long: 'Generates mesh config, the cluster env file, certificates and tokens for a VM workload from a WorkloadGroup.',
            flags: [
              flag.bool('autoregister', false, 'Creates a WorkloadEntry upon connection to meshd (if enabled in meshd).'),
              flag.bool('capture-dns', true, 'Enables the capture of outgoing DNS packets on port 53, redirecting to the agent'),
              flag.string('clusterID', '', 'The ID used to identify the cluster'),
              flag.string('externalIP', '', 'External IP address of the workload'),
              flag.string('file', '', 'Filename of the WorkloadGroup artifact. Leave this field empty if using the API server', { short: 'f' }),
              flag.string('ingressIP', '', 'IP address of the ingress gateway'),
              flag.string('ingressService', 'mesh-eastwestgateway', 'Name of the Service to be used as the ingress gateway, in the format <service>.<namespace>. If no namespace is provided, the default mesh-system namespace will be used.'),
              flag.string('internalIP', '', 'Internal IP address of the workload'),
              flag.string('name', '', 'The name of the workload group'),
              ns(),
              flag.string('output', '', 'Output directory for generated files', { short: 'o' }),
              revision(),
              flag.int('tokenDuration', 3600, 'The token duration in seconds (default: 1 hour)'),
            ],
            run: notBuilt,
          }),
        ],
      }),
      command({
        name: 'group',
        short: 'Commands dealing with WorkloadGroup resources',
        commands: [
          command({
            name: 'create',
            short: 'Creates a WorkloadGroup resource that provides a template for associated WorkloadEntries',
            flags: [
              flag.stringSlice('annotations', [], 'The annotations to apply to the workload instances', { short: 'a' }),
              flag.stringSlice('labels', [], 'The labels to apply to the workload instances; e.g. -l env=prod,vers=2', { short: 'l' }),
              flag.string('name', '', 'The name of the workload group'),
              ns(),
              flag.stringSlice('ports', [], 'The incoming ports exposed by the workload instance; e.g. -p http=80,grpc=8080', { short: 'p' }),
              flag.string('serviceAccount', 'default', 'The service identity to associate with the workload instances', { short: 's' }),
            ],
            run: notBuilt,
          }),
        ],
      }),
    ],
  });
}

/** The experimental command tree. */
export function experimentalCommand(deps: MeshctlDeps = {}): Command {
  return command({
    name: 'experimental',
    aliases: ['x'],
    short: 'Experimental commands that may be modified or deprecated',
    commands: [
      command({
        name: 'authz',
        short: 'Inspect Mesh AuthorizationPolicy',
        long: 'Commands to inspect Mesh AuthorizationPolicy; not ready for production.',
        commands: [
          command({
            name: 'check',
            short: 'Check AuthorizationPolicy applied in the pod.',
            args: TARGET,
            flags: [flag.string('file', '', 'The JSON file with the proxy config dump of a pod', { short: 'f' })],
            run: lazyRun(() => import('./dataplane-run.js'), (m) => (ctx) => m.runAuthzCheck(ctx, deps)),
          }),
        ],
      }),
      command({
        name: 'check-inject',
        short: 'Check the injection status or inject-ability of a given resource, explains why it is (or will be) injected or not',
        args: TARGET,
        flags: [flag.string('labels', '', 'Check namespace and label pairs injection status, split multiple labels by commas', { short: 'l' })],
        run: lazyRun(() => import('./check-inject-command.js'), (m) => m.runCheckInject),
      }),
      command({ name: 'config', short: 'Configure meshctl defaults', commands: [configListCommand()] }),
      command({
        name: 'dataplane-stats',
        aliases: ['es'],
        short: 'Retrieves proxy metrics in the specified pod',
        args: TARGET,
        flags: [
          flag.string('output', 'short', 'Output format: one of json|yaml|prom|prom-merged', { short: 'o' }),
          flag.string('type', 'server', 'Where to grab the stats: one of server|clusters', { short: 't' }),
        ],
        run: lazyRun(() => import('./dataplane-run.js'), (m) => (ctx) => m.runDataplaneStats(ctx, deps)),
      }),
      command({
        name: 'describe',
        aliases: ['des'],
        short: 'Describe resource and related Mesh configuration',
        commands: [
          command({ name: 'pod', aliases: ['po'], short: 'Describe pods and their Mesh configuration', args: { usage: '<pod>', min: 1, max: 1 }, flags: [ignoreUnmeshed()], run: lazyRun(() => import('./describe-run.js'), (m) => m.runDescribePod) }),
          command({ name: 'service', aliases: ['svc'], short: 'Describe services and their Mesh configuration', args: { usage: '<svc>', min: 1, max: 1 }, flags: [ignoreUnmeshed()], run: lazyRun(() => import('./describe-run.js'), (m) => m.runDescribeService) }),
        ],
      }),
      replayCommand(),
      simulateCommand(),
      translateCommand(),
      waypoint(),
      workload(),
    ],
  });
}
