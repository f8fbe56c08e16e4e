// Entry point of `meshctl` (bin/meshctl imports this file).
import { homedir } from 'node:os';
import { loadEnv } from '../../core/startup.js';
import { runMain } from '../common/run-main.js';
import { meshctlDefaults } from './meshctl-defaults.js';
import { meshctlCommand } from './meshctl-command.js';

let defaults;
try {
  defaults = meshctlDefaults(loadEnv('meshctl', process.env), process.env['HOME'] ?? homedir());
} catch (e) {
  process.stderr.write(`Error: ${(e as Error).message}\n`);
  process.exit(1);
}
await runMain(meshctlCommand(), defaults);
