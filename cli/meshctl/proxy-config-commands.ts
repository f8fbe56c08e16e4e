/** `meshctl proxy-config` (alias pc): reads a data-plane proxy's configuration. */
import { command, flag, type Command, type Flag } from '../framework/index.js';
import { notBuilt } from '../common/not-built.js';

const TARGET = { usage: '[<type>/]<name>[.<namespace>]', max: 1 } as const;
const file = (): Flag => flag.string('file', '', 'Proxy config dump JSON file', { short: 'f' });
const port = (what: string): Flag => flag.int('port', 0, `Filter ${what} by port field`);

function sub(name: string, aliases: string[], short: string, flags: Flag[] = []): Command {
  return command({ name, aliases, short, args: TARGET, flags, run: notBuilt });
}

/** The proxy-config command tree. */
export function proxyConfigCommand(): Command {
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
      sub('all', ['a'], 'Retrieves all configuration for the data-plane proxy in the specified pod', [
        flag.string('address', '', 'Filter listeners by address field'),
        flag.string('direction', '', 'Filter clusters by Direction field'),
        file(),
        flag.string('fqdn', '', 'Filter clusters by substring of Service FQDN field'),
        flag.string('name', '', 'Filter listeners by route name field'),
        port('listeners and clusters'),
        flag.string('subset', '', 'Filter clusters by substring of Subset field'),
        flag.string('type', '', 'Filter listeners by type field'),
        flag.bool('verbose', true, 'Output more information'),
      ]),
      sub('bootstrap', ['b'], 'Retrieves bootstrap configuration for the data-plane proxy in the specified pod', [file()]),
      sub('cluster', ['clusters', 'c'], 'Retrieves cluster configuration for the data-plane proxy in the specified pod', [
        flag.string('direction', '', 'Filter clusters by Direction field'),
        file(),
        flag.string('fqdn', '', 'Filter clusters by substring of Service FQDN field'),
        port('clusters'),
        flag.string('subset', '', 'Filter clusters by substring of Subset field'),
      ]),
      sub('ecds', ['ec'], 'Retrieves typed extension configuration for the data-plane proxy in the specified pod', [file()]),
      sub('endpoint', ['endpoints', 'ep'], 'Retrieves endpoint configuration for the data-plane proxy in the specified pod', [
        flag.string('address', '', 'Filter endpoints by address field'),
        flag.string('cluster', '', 'Filter endpoints by cluster name field'),
        file(),
        port('endpoints'),
        flag.string('status', '', 'Filter endpoints by status field'),
      ]),
      sub('listener', ['listeners', 'l'], 'Retrieves listener configuration for the data-plane proxy in the specified pod'),
      sub('log', ['o'], 'Retrieves logging levels of the data-plane proxy in the specified pod'),
      sub('routes', ['route', 'r'], 'Retrieves route configuration for the data-plane proxy in the specified pod'),
      sub('secret', ['secrets', 's'], 'Retrieves secret configuration for the data-plane proxy in the specified pod'),
    ],
  });
}
