/** meshctl's installation commands: install (apply), upgrade, uninstall, manifest, profile, operator. */
import { command, flag, lazyRun, type Command, type Flag } from '../framework/index.js';

const charts = (): Flag => flag.string('charts', '', 'Deprecated, use manifests (-d) instead.');
const manifests = (): Flag => flag.string('manifests', '', 'Specify a path to a directory of charts and profiles (e.g. ~/Downloads/mesh-0.1.0/manifests)', { short: 'd' });
const revision = (usage = 'Target control plane revision for the command.'): Flag => flag.string('revision', '', usage, { short: 'r' });
const setFlag = (): Flag =>
  flag.stringArray('set', [], 'Override a MeshOperator value, e.g. to choose a profile (--set profile=demo), enable or disable components (--set components.cni.enabled=true), or override Mesh settings (--set meshConfig.enableTracing=true). Dots inside a key are escaped with a backslash.', { short: 's' });
const skipConfirmation = (): Flag => flag.bool('skip-confirmation', false, 'The skipConfirmation determines whether the user is prompted for confirmation. If set to true, the user is not prompted and a Yes response is assumed in all cases.', { short: 'y' });
const force = (): Flag => flag.bool('force', false, 'Proceed even with validation errors.');
const dryRun = (usage = 'Console/log output only, make no changes.'): Flag => flag.bool('dry-run', false, usage);

/** Flags of install, upgrade and manifest install. */
function installFlags(): Flag[] {
  return [
    charts(),
    dryRun(),
    flag.stringSlice('filename', [], 'Path to file containing MeshOperator custom resource. This flag can be specified multiple times to overlay multiple files. Multiple files are overlaid in left to right order.', { short: 'f' }),
    force(),
    manifests(),
    flag.duration('readiness-timeout', 300_000, 'Maximum time to wait for Mesh resources in each component to be ready.'),
    revision(),
    setFlag(),
    skipConfirmation(),
    flag.bool('verify', false, 'Verify the Mesh control plane after installation/in-place upgrade'),
  ];
}

function operatorCommonFlags(): Flag[] {
  return [
    charts(),
    flag.string('hub', 'unknown', 'The hub for the operator controller image'),
    flag.stringSlice('imagePullSecrets', [], 'The imagePullSecrets are used to pull the operator image from the private registry, could be secret list separated by comma, eg. \'--imagePullSecrets imagePullSecret1,imagePullSecret2\''),
    manifests(),
    flag.string('operatorNamespace', 'mesh-operator', 'The namespace the operator controller is installed into.'),
    revision(),
    flag.string('tag', 'unknown', 'The tag for the operator controller image'),
    flag.string('watchedNamespaces', 'mesh-system', 'The namespaces the operator controller watches, could be namespace list separated by comma, eg. \'ns1,ns2\''),
  ];
}

/** install (alias apply). */
export function installCommand(): Command {
  return command({ name: 'install', aliases: ['apply'], short: 'Applies a Mesh manifest, installing or reconfiguring Mesh on a cluster.', flags: installFlags(), run: lazyRun(() => import('./install-run.js'), (m) => m.runInstall) });
}

/** upgrade: install in place of an existing control plane. */
export function upgradeCommand(): Command {
  return command({ name: 'upgrade', short: 'Upgrade Mesh control plane in-place', flags: installFlags(), run: lazyRun(() => import('./install-run.js'), (m) => m.runUpgrade) });
}

/** uninstall. */
export function uninstallCommand(): Command {
  return command({
    name: 'uninstall',
    short: 'Uninstall Mesh from a cluster',
    long: 'The uninstall command uninstalls Mesh from a cluster',
    flags: [
      dryRun(),
      flag.string('filename', '', 'The filename of the MeshOperator CR.', { short: 'f' }),
      force(),
      manifests(),
      flag.bool('purge', false, 'Delete all Mesh related sources for all versions'),
      revision(),
      setFlag(),
      skipConfirmation(),
      flag.bool('verbose', false, 'Verbose output.', { short: 'v' }),
    ],
    run: lazyRun(() => import('./uninstall-run.js'), (m) => m.runUninstall),
  });
}

/** manifest generate|install|diff. */
export function manifestCommand(): Command {
  return command({
    name: 'manifest',
    short: 'Commands related to Mesh manifests',
    long: 'The manifest command generates and diffs Mesh manifests.',
    persistentFlags: [dryRun()],
    commands: [
      command({
        name: 'diff',
        short: 'Compare manifests and generate diff',
        args: { usage: '<file|dir> <file|dir>', min: 2, max: 2 },
        flags: [
          flag.bool('directory', false, 'Compare directory.', { short: 'r' }),
          flag.string('ignore', '', 'Ignore all listed items during comparison, using the same list format as select.'),
          flag.string('rename', '', 'Rename resources before comparison. The format of each renaming pair is A->B, all renaming pairs are comma separated.'),
          flag.string('select', '::', 'Constrain the list of resources to compare to only the ones in this list, ignoring all others. The format of each list item is "::" and the items are comma separated. The "*" character represents wildcard selection.'),
          flag.bool('verbose', false, 'Verbose output.', { short: 'v' }),
        ],
        run: lazyRun(() => import('./manifest-diff-command.js'), (m) => m.runManifestDiff),
      }),
      command({
        name: 'generate',
        short: 'Generates a Mesh install manifest',
        flags: [
          charts(),
          flag.bool('cluster-specific', false, 'If enabled, the current cluster will be checked for cluster-specific setting detection.'),
          flag.stringSlice('component', [], 'Specify which component to generate manifests for.'),
          flag.stringSlice('filename', [], 'Path to file containing MeshOperator custom resource. This flag can be specified multiple times to overlay multiple files. Multiple files are overlaid in left to right order.', { short: 'f' }),
          force(),
          manifests(),
          flag.string('output', '', 'Manifest output directory path.', { short: 'o' }),
          revision(),
          setFlag(),
        ],
        run: lazyRun(() => import('./manifest-generate-command.js'), (m) => m.runManifestGenerate),
      }),
      command({ name: 'install', aliases: ['apply'], short: 'Applies a Mesh manifest, installing or reconfiguring Mesh on a cluster.', flags: installFlags(), run: lazyRun(() => import('./install-run.js'), (m) => m.runInstall) }),
    ],
  });
}

/** profile list|dump|diff. */
export function profileCommand(): Command {
  return command({
    name: 'profile',
    short: 'Commands related to Mesh configuration profiles',
    long: 'The profile command lists, dumps or diffs Mesh configuration profiles.',
    commands: [
      command({
        name: 'diff',
        short: 'Diffs two Mesh configuration profiles',
        args: { usage: '<profile|file1.yaml> <profile|file2.yaml>', min: 2, max: 2 },
        flags: [charts(), manifests()],
        run: lazyRun(() => import('./profile-command-runs.js'), (m) => m.runProfileDiff),
      }),
      command({
        name: 'dump',
        short: 'Dumps a Mesh configuration profile',
        args: { usage: '[<profile>]', max: 1 },
        flags: [
          charts(),
          flag.string('config-path', '', 'The path the root of the configuration subtree to dump e.g. components.pilot. By default, dump whole tree', { short: 'p' }),
          flag.stringSlice('filename', [], 'Path to file containing MeshOperator custom resource. This flag can be specified multiple times to overlay multiple files. Multiple files are overlaid in left to right order.', { short: 'f' }),
          manifests(),
          flag.string('output', 'yaml', 'Output format: one of json|yaml|flags', { short: 'o' }),
        ],
        run: lazyRun(() => import('./profile-command-runs.js'), (m) => m.runProfileDump),
      }),
      command({ name: 'list', short: 'Lists available Mesh configuration profiles', flags: [charts(), manifests()], run: lazyRun(() => import('./profile-command-runs.js'), (m) => m.runProfileList) }),
    ],
  });
}

/** operator dump|init|remove. */
export function operatorCommand(): Command {
  return command({
    name: 'operator',
    short: 'Commands related to Mesh operator controller.',
    long: 'The operator command installs, dumps, removes and shows the status of the operator controller.',
    commands: [
      command({
        name: 'dump',
        short: 'Dumps the Mesh operator controller manifest.',
        flags: [...operatorCommonFlags(), flag.string('output', 'yaml', 'Output format: one of json|yaml', { short: 'o' })],
        run: lazyRun(() => import('./operator-run.js'), (m) => m.runOperatorDump),
      }),
      command({
        name: 'init',
        short: 'Installs the Mesh operator controller in the cluster.',
        flags: [...operatorCommonFlags(), flag.string('filename', '', 'Path to file containing MeshOperator custom resource', { short: 'f' })],
        run: lazyRun(() => import('./operator-run.js'), (m) => m.runOperatorInit),
      }),
      command({
        name: 'remove',
        short: 'Removes the Mesh operator controller from the cluster.',
        flags: [
          dryRun(),
          force(),
          flag.string('operatorNamespace', 'mesh-operator', 'The namespace the operator controller is installed into.'),
          flag.bool('purge', false, 'Remove all Mesh operator controllers of all versions'),
          revision(),
          skipConfirmation(),
        ],
        run: lazyRun(() => import('./operator-run.js'), (m) => m.runOperatorRemove),
      }),
    ],
  });
}
