/**
 * What a command line runs against: the environment, the output streams and optional sources of flag
 * defaults. Tests pass their own; the launchers pass the process's.
 */

import { colorEnabled } from './color.js';

/** Something text can be written to (a stream or a test buffer). */
export interface TextSink {
  write(text: string): unknown;
}

/**
 * Supplies a flag's value when the command line does not give it, as text in the flag's own syntax
 * (for meshctl: `MESHCTL_*` variables, then the MESHCONFIG file). Returns undefined to fall through.
 * `origin` names where the value came from, for error messages.
 */
export type FlagDefaultSource = (flagName: string) => { value: string; origin: string } | undefined;

/** The world a command line runs in. */
export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /** Consulted in order for flags not given on the command line. */
  readonly defaults?: readonly FlagDefaultSource[];
  /** Colour the `Error:` prefix on stderr (see `colorEnabled`). Off when absent. */
  readonly color?: boolean;
}

/** The process's own environment and streams; colour when stderr is a terminal and TERM is not dumb. */
export function processIo(defaults?: readonly FlagDefaultSource[]): CliIo {
  return {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    color: colorEnabled(process.env, process.stderr.isTTY === true),
    ...(defaults ? { defaults } : {}),
  };
}

/** An in-memory io for tests: `out()` and `err()` return what was written. */
export function bufferIo(env: Record<string, string | undefined> = {}, defaults?: readonly FlagDefaultSource[]): CliIo & {
  out(): string;
  err(): string;
} {
  let out = '';
  let err = '';
  return {
    env,
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    ...(defaults ? { defaults } : {}),
    out: () => out,
    err: () => err,
  };
}
