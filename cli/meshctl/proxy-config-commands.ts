/** `meshctl proxy-config` (alias pc): reads a data-plane proxy's configuration. */
import { command, flag, lazyRun, type Command, type Flag, type RunFn } from '../framework/index.js';
import type { MeshctlDeps } from './meshctl-reach.js';

const TARGET = { usage: '[<type>/]<name>[.<namespace>]', max: 1 } as const;
const file = (): Flag => flag.string('file', '', 'Proxy config dump JSON file', { short: 'f' });
const port = (what: string): Flag => flag.int('port', 0, `Filter ${what} by port field`);
const verbose = (): Flag => flag.bool('verbose', true, 'Output more information');

type Kind = 'all' | 'bootstrap' | 'cluster' | 'endpoint' | 'listener' | 'routes' | 'secret' | 'ecds';

function runKind(deps: MeshctlDeps, kind: Kind): RunFn {
  return lazyRun(() => import('./proxy-config-run.js'), (m) => (ctx) => m.runProxyConfig(ctx, deps, kind));
}

function sub(deps: MeshctlDeps, kind: Kind, name: string, aliases: string[], short: string, flags: Flag[] = []): Command {
  return command({ name, aliases, short, args: TARGET, flags, run: runKind(deps, kind) });
}

/** The proxy-config command tree; `deps` carries a test's pod dialer down to the bodies. */
export function proxyConfigCommand(deps: MeshctlDeps = {}): Command {
  return command({
    name: 'proxy-config',
    aliases: ['pc'],
    short: 'Retrieve information about proxy configuration from the data-plane proxy',
    long: 'A group of commands used to retrieve information about proxy configuration from the data-plane proxy config dump',
    persistentFlags: [
      flag.string('output', 'short', 'Output format: one of json|yaml|short', { short: 'o' }),
      flag.int('proxy-admin-port', 15000, 'Proxy admin port'),
    ],
    commands: [
      sub(deps, 'all', 'all', ['a'], 'Retrieves all configuration for the data-plane proxy in the specified pod', [
        flag.string('address', '', 'Filter listeners by address field'),
        flag.string('direction', '', 'Filter clusters by Direction field'),
        file(),
        flag.string('fqdn', '', 'Filter clusters by substring of Service FQDN field'),
        flag.string('name', '', 'Filter listeners by route name field'),
        port('listeners and clusters'),
        flag.string('subset', '', 'Filter clusters by substring of Subset field'),
        flag.string('type', '', 'Filter listeners by type field'),
        verbose(),
      ]),
      sub(deps, 'bootstrap', 'bootstrap', ['b'], 'Retrieves bootstrap configuration for the data-plane proxy in the specified pod', [file()]),
      sub(deps, 'cluster', 'cluster', ['clusters', 'c'], 'Retrieves cluster configuration for the data-plane proxy in the specified pod', [
        flag.string('direction', '', 'Filter clusters by Direction field'),
        file(),
        flag.string('fqdn', '', 'Filter clusters by substring of Service FQDN field'),
        port('clusters'),
        flag.string('subset', '', 'Filter clusters by substring of Subset field'),
      ]),
      sub(deps, 'ecds', 'ecds', ['ec'], 'Retrieves typed extension configuration for the data-plane proxy in the specified pod', [file()]),
      sub(deps, 'endpoint', 'endpoint', ['endpoints', 'ep'], 'Retrieves endpoint configuration for the data-plane proxy in the specified pod', [
        flag.string('address', '', 'Filter endpoints by address field'),
        flag.string('cluster', '', 'Filter endpoints by cluster name field'),
        file(),
        port('endpoints'),
        flag.string('status', '', 'Filter endpoints by status field'),
      ]),
      sub(deps, 'listener', 'listener', ['listeners', 'l'], 'Retrieves listener configuration for the data-plane proxy in the specified pod', [
        flag.string('address', '', 'Filter listeners by address field'),
        file(),
        port('listeners'),
        flag.string('type', '', 'Filter listeners by type field (HTTP, TCP, HTTP+TCP)'),
        verbose(),
      ]),
      command({
        name: 'log',
        aliases: ['o'],
        short: 'Retrieves logging levels of the data-plane proxy in the specified pod',
        args: TARGET,
        flags: [
          flag.string('level', '', 'Comma-separated minimum per-logger level of messages to output, in the form of [<logger>:]<level>,[<logger>:]<level>,... where logger can be one of the proxy loggers and level can be one of [trace, debug, info, warning, error, critical, off]'),
          flag.bool('reset', false, 'Reset levels to default value (warning).', { short: 'r' }),
        ],
        run: lazyRun(() => import('./proxy-config-run.js'), (m) => (ctx) => m.runProxyLog(ctx, deps)),
      }),
      sub(deps, 'routes', 'routes', ['route', 'r'], 'Retrieves route configuration for the data-plane proxy in the specified pod', [
        file(),
        flag.string('name', '', 'Filter listeners by route name field'),
        verbose(),
      ]),
      sub(deps, 'secret', 'secret', ['secrets', 's'], 'Retrieves secret configuration for the data-plane proxy in the specified pod', [file()]),
    ],
  });
}
