/** The body of `pilot-agent wait`: polls a readiness URL until it answers 200 or the time runs out. */
import { request as httpRequest } from 'node:http';
import { systemClock, type Clock } from '../../core/index.js';
import { CliError, type FlagValues, type RunContext } from '../framework/index.js';

/** The options of one wait, from the command's flags. */
export interface WaitOptions {
  readonly url: string;
  readonly periodMs: number;
  readonly requestTimeoutMs: number;
  readonly timeoutMs: number;
}

/** Reads and checks the wait flags. */
export function waitOptionsFrom(flags: FlagValues): WaitOptions {
  const url = flags.string('url');
  try {
    new URL(url);
  } catch {
    throw new CliError(`--url: "${url}" is not a URL`);
  }
  for (const name of ['periodMillis', 'requestTimeoutMillis', 'timeoutSeconds']) {
    if (flags.number(name) <= 0) throw new CliError(`--${name} must be greater than 0, not ${flags.number(name)}`);
  }
  return {
    url,
    periodMs: flags.number('periodMillis'),
    requestTimeoutMs: flags.number('requestTimeoutMillis'),
    timeoutMs: flags.number('timeoutSeconds') * 1000,
  };
}

/** One readiness probe: resolves with a reason when not ready, undefined when ready (HTTP 200). */
function probe(url: string, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? undefined : `HTTP status code ${res.statusCode}`));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs}ms`)));
    req.on('error', (e) => resolve(e.message));
    req.end();
  });
}

/** Polls until ready; rejects with a CliError giving the last reason after the timeout (measured on `clock`). */
export async function waitUntilReady(o: WaitOptions, log: (line: string) => void, clock: Clock = systemClock): Promise<void> {
  const deadline = clock.now() + o.timeoutMs;
  log(`Waiting for the proxy to be ready (timeout: ${o.timeoutMs / 1000} seconds)...`);
  let last = 'not checked';
  for (;;) {
    const reason = await probe(o.url, o.requestTimeoutMs);
    if (reason === undefined) {
      log('The proxy is ready!');
      return;
    }
    last = reason;
    log(`Not ready yet: ${reason}`);
    if (clock.now() + o.periodMs >= deadline) break;
    // NOTE: the wait between probes is all this command does, so it keeps the process alive.
    await clock.sleep(o.periodMs, undefined, { keepAlive: true });
  }
  throw new CliError(`timeout waiting for the proxy to become ready at ${o.url}. Last error: ${last}`);
}

/** Runs `pilot-agent wait`. */
export async function runWait(ctx: RunContext): Promise<void> {
  await waitUntilReady(waitOptionsFrom(ctx.flags), (line) => ctx.io.stdout.write(`${line}\n`));
}
