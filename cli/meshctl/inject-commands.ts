/** meshctl's orch-inject, create-remote-secret and tag commands. */
import type { MeshctlDeps } from './meshctl-reach.js';
import { command, flag, lazyRun, type Command, type Flag } from '../framework/index.js';
import { notBuilt } from '../common/not-built.js';

/** orch-inject: sidecar injection into orchestrator manifests. */
export function orchInjectCommand(deps: MeshctlDeps = {}): Command {
  return command({
    name: 'orch-inject',
    short: 'Inject Mesh sidecar into orchestrator pod resources',
    flags: [
      flag.string('authority', '', 'XDS Subject Alternative Name (for example meshd.mesh-system.svc)'),
      flag.string('cert-dir', '', 'XDS Endpoint certificate directory'),
      flag.string('filename', '', 'Input orchestrator resource filename', { short: 'f' }),
      flag.string('injectConfigFile', '', 'Injection configuration filename. Cannot be used with meshConfigMapName'),
      flag.bool('insecure', false, 'Skip server certificate and domain verification. (NOT SECURE!)'),
      flag.string('meshConfigFile', '', 'Mesh configuration filename. Takes precedence over meshConfigMapName if set'),
      flag.string('meshConfigMapName', 'mesh', 'ConfigMap name for mesh configuration, key should be "mesh"'),
      flag.string('operatorFileName', '', 'Path to file containing MeshOperator custom resources. If configs from files like meshConfigFile, valuesFile are provided, they will be overridden by mesh operator configs.'),
      flag.string('output', '', 'Modified output orchestrator resource filename', { short: 'o' }),
      flag.bool('plaintext', false, 'Use plain-text HTTP/2 when connecting to server (no TLS).'),
      flag.string('revision', '', 'Control plane revision', { short: 'r' }),
      flag.duration('timeout', 30_000, 'The duration to wait before failing'),
      flag.string('valuesFile', '', 'Injection values configuration filename.'),
      flag.string('webhookConfig', 'mesh-sidecar-injector', 'MutatingWebhookConfiguration name for Mesh'),
      flag.string('xds-address', '', 'XDS Endpoint'),
      flag.string('xds-label', '', 'Mesh XDS Endpoint pod label selector'),
      flag.int('xds-port', 15012, 'Mesh XDS Endpoint port'),
    ],
    run: lazyRun(() => import('./orch-inject-command.js'), (m) => (ctx) => m.runOrchInject(ctx, deps)),
  });
}

/** create-remote-secret. */
export function createRemoteSecretCommand(): Command {
  return command({
    name: 'create-remote-secret',
    short: 'Create a secret with credentials to allow Mesh to access remote orchestrator apiservers',
    flags: [
      flag.stringToString('auth-plugin-config', {}, 'Authenticator plug-in configuration; requires auth-type plugin'),
      flag.string('auth-plugin-name', '', 'Authenticator plug-in name; requires auth-type plugin'),
      flag.string('auth-type', 'bearer-token', 'Type of authentication to use. supported values = [bearer-token plugin]'),
      flag.bool('create-service-account', true, 'If true, the service account needed for creating the remote secret will be created if it doesn\'t exist.'),
      flag.string('manifests', '', 'Specify a path to a directory of charts and profiles', { short: 'd' }),
      flag.string('name', '', 'Name of the local cluster whose credentials are stored in the secret. If a name is not specified the system namespace UUID of the local cluster will be used.'),
      flag.string('secret-name', '', 'The name of the specific secret to use from the service-account. Needed when there are multiple secrets in the service account.'),
      flag.string('server', '', 'The address and port of the orchestrator API server.'),
      flag.string('service-account', '', 'Create a secret with this service account\'s credentials. Default value is "mesh-reader-service-account" if type is "remote", "meshd" if type is "config".'),
      flag.string('type', 'remote', 'Type of the generated secret. supported values = [remote config]'),
    ],
    run: notBuilt,
  });
}

const TAG_ARG = { usage: '<revision-tag>', min: 1, max: 1 } as const;

/** tag set|remove|list (list as Istio has it, beyond the spec; Istio's generate is not built). */
export function tagCommand(): Command {
  const manifests = (): Flag => flag.string('manifests', '', 'Specify a path to a directory of charts and profiles', { short: 'd' });
  return command({
    name: 'tag',
    short: 'Command group used to interact with revision tags',
    long: 'Revision tags map a tag name to a control plane revision. Namespaces select a tag through the label mesh.io/rev.',
    commands: [
      command({ name: 'remove', short: 'Remove Mesh control plane revision tag', args: TAG_ARG, flags: [flag.bool('skip-confirmation', false, 'The skipConfirmation determines whether the user is prompted for confirmation.', { short: 'y' })], run: lazyRun(() => import('./tag-run.js'), (m) => m.runTagRemove) }),
      command({ name: 'list', aliases: ['show'], short: 'List existing revision tags', run: lazyRun(() => import('./tag-run.js'), (m) => m.runTagList) }),
      command({
        name: 'set',
        short: 'Create or modify revision tags',
        args: TAG_ARG,
        flags: [
          flag.bool('auto-inject-namespaces', false, 'If set to true, the sidecars should be automatically injected into all namespaces by default'),
          manifests(),
          flag.bool('overwrite', false, 'If set to true, allows users to overwrite an existing tag. Use with caution as this may result in traffic shifts'),
          flag.string('revision', '', 'Control plane revision to reference from a given revision tag', { short: 'r' }),
          flag.bool('skip-confirmation', false, 'The skipConfirmation determines whether the user is prompted for confirmation. If set to true, the user is not prompted and a Yes response is assumed in all cases.', { short: 'y' }),
          flag.string('webhook-name', '', 'Name to use for a revision tag\'s mutating webhook configuration.'),
        ],
        run: lazyRun(() => import('./tag-run.js'), (m) => m.runTagSet),
      }),
    ],
  });
}
