// Entry point of `pilot-discovery` (bin/pilot-discovery imports this file).
import { runMain } from '../common/run-main.js';
import { pilotDiscoveryCommand } from './pilot-discovery-command.js';

await runMain(pilotDiscoveryCommand());
