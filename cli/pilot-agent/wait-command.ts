/** `pilot-agent wait`: polls a readiness URL until it answers 200 or the time runs out (body in wait-run.ts). */
import { command, flag, lazyRun, type Command } from '../framework/index.js';

/** The `wait` command. */
export function waitCommand(): Command {
  return command({
    name: 'wait',
    short: 'Waits until the proxy is ready',
    flags: [
      flag.int('periodMillis', 500, 'number of milliseconds to wait between attempts'),
      flag.int('requestTimeoutMillis', 500, 'number of milliseconds to wait for response'),
      flag.int('timeoutSeconds', 60, 'maximum number of seconds to wait for the proxy to be ready'),
      flag.string('url', 'http://localhost:15021/healthz/ready', 'URL to use in requests'),
    ],
    run: lazyRun(() => import('./wait-run.js'), (m) => m.runWait),
  });
}
