// Entry point of `operator` (bin/operator imports this file).
import { runMain } from '../common/run-main.js';
import { operatorCommand } from './operator-command.js';

await runMain(operatorCommand());
