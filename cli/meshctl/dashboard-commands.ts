/** `meshctl dashboard` (aliases dash, d) and its subcommands. */
import { command, flag, type Command, type Flag } from '../framework/index.js';
import type { MeshctlDeps } from './meshctl-reach.js';
import { notBuilt } from '../common/not-built.js';

const WORKLOAD_ARG = { usage: '[<type>/]<name>[.<namespace>]', max: 1 } as const;

function common(): Flag[] {
  return [
    flag.string('address', 'localhost', 'Address to listen on. Only accepts IP address or localhost as a value. When localhost is supplied, meshctl will try to bind on both 127.0.0.1 and ::1 and will fail if neither of these address are available to bind.'),
    flag.bool('browser', true, 'When --browser is supplied as false, meshctl will not open the browser. Default value is true which means meshctl will always open a browser to view the dashboard.'),
    flag.int('port', 0, 'Local port to listen to', { short: 'p' }),
  ];
}

const uiPort = (port: number, what: string): Flag => flag.int('ui-port', port, `The component dashboard UI port (${what}).`);
const selector = (): Flag => flag.string('selector', '', 'Label selector', { short: 'l' });

function ui(name: string, short: string, port: number): Command {
  return command({ name, short, flags: [...common(), uiPort(port, name)], run: notBuilt });
}

/** The dashboard command tree. */
export function dashboardCommand(_deps: MeshctlDeps = {}): Command {
  return command({
    name: 'dashboard',
    aliases: ['dash', 'd'],
    short: 'Access to Mesh web UIs',
    commands: [
      command({
        name: 'controlz',
        short: 'Open ControlZ web UI',
        long: 'Open the ControlZ web UI for the pod in the Mesh control plane',
        args: WORKLOAD_ARG,
        flags: [...common(), flag.int('ctrlz_port', 9876, 'ControlZ port'), selector()],
        run: notBuilt,
      }),
      command({
        name: 'dataplane',
        short: 'Open the data-plane proxy admin dashboard',
        args: WORKLOAD_ARG,
        deprecated: 'use proxy',
        flags: [...common(), selector(), uiPort(15000, 'proxy admin')],
        run: notBuilt,
      }),
      command({
        name: 'proxy',
        short: 'Open the admin dashboard of a data-plane proxy, including node and waypoint proxies',
        args: WORKLOAD_ARG,
        flags: [...common(), selector(), uiPort(15000, 'proxy admin')],
        run: notBuilt,
      }),
      ui('metrics-ui', 'Open the metrics dashboard web UI', 3000),
      ui('tracing-ui-1', 'Open the tracing web UI', 16686),
      ui('topology-ui', 'Open the topology web UI', 20001),
      ui('metrics-store', 'Open the metrics store web UI', 9090),
      ui('tracing-ui-2', 'Open the tracing web UI', 8080),
      ui('tracing-ui-3', 'Open the tracing web UI', 9411),
    ],
  });
}
