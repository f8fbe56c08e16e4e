// Entry point of `pilot-agent` (bin/pilot-agent imports this file).
import { runMain } from '../common/run-main.js';
import { pilotAgentCommand } from './pilot-agent-command.js';

await runMain(pilotAgentCommand());
