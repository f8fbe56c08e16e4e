/** Errors a command raises for the runner to report. */

/** A command whose behaviour is not built yet. The runner prints `not implemented yet: <what>`, exit 1. */
export class NotImplementedError extends Error {
  override readonly name = 'NotImplementedError';
  constructor(readonly what: string) {
    super(`not implemented yet: ${what}`);
  }
}

/** Throws a NotImplementedError for `what` (a full command, e.g. `meshctl install`). */
export function notImplemented(what: string): never {
  throw new NotImplementedError(what);
}

/**
 * A user-facing failure of a command (bad input, unreachable server). The runner prints
 * `Error: <message>` without a stack and exits with `exitCode`.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
