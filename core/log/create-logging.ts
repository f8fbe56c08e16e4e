import pino, { type Logger } from 'pino';
import type { Clock } from '../clock/index.js';
import { callerFrames, shortCaller } from './caller.js';
import { formatConsoleLine, formatLogTime } from './console-format.js';
import { openRotating, openTarget, type LogSink } from './log-sinks.js';
import { ALL_SCOPES, DEFAULT_SCOPE, LogConfigError, checkScope, parseLogLevel, parseScopeLevels, parseScopeList, realScopes, type LogLevel } from './log-levels.js';
import { ScopeTable, type ScopeState } from './scope-table.js';

/** The raw values of the spec's logging flags. */
export interface LogOptions {
  /** `--log_output_level`, e.g. `default:info,ads:debug`. */
  outputLevels: string;
  /** `--log_stacktrace_level`, e.g. `default:none`. */
  stacktraceLevels: string;
  /** `--log_as_json`. */
  asJson: boolean;
  /** `--log_caller`: comma-separated scopes whose records carry `caller`. */
  callerScopes: string;
  /** `--log_target`: `stdout`, `stderr` or file paths. */
  targets: string[];
  /** `--log_rotate` (empty = off) and its limits; the size is in megabytes, 0 age or backups = no limit. */
  rotate: { path: string; maxAgeDays: number; maxBackups: number; maxSizeMB: number };
}

/** The spec's defaults of the logging flags. */
export const DEFAULT_LOG_OPTIONS: Readonly<LogOptions> = Object.freeze({
  outputLevels: 'default:info',
  stacktraceLevels: 'default:none',
  asJson: false,
  callerScopes: '',
  targets: ['stdout'],
  rotate: { path: '', maxAgeDays: 30, maxBackups: 1000, maxSizeMB: 104857600 },
});

/** Seams for tests: the clock and a rotation size in bytes instead of megabytes. */
export interface LoggingDeps {
  /**
   * The wall clock of record times and backup names. Default: the system's wall clock at sub-millisecond
   * resolution (`performance.timeOrigin + performance.now()`), finer than `systemClock.wallNow()`.
   */
  clock?: Clock;
  rotateMaxSizeBytes?: number;
}

/** The logging of one process: scope loggers whose levels can change while it runs. */
export interface Logging {
  /** The `default` scope's logger. */
  readonly root: Logger;
  /** The logger of `name` (the same one each time); LogConfigError for an unknown scope. */
  scope(name: string): Logger;
  /** The scopes, without `all`. */
  scopes(): readonly string[];
  /** Every scope with its current levels. */
  levels(): readonly ScopeState[];
  /** Sets the output level of a scope (`all` = every scope); LogConfigError for a bad scope or level. */
  setLevel(scope: string, level: string): void;
  /** Sets the level at and above which records carry `stack`. */
  setStacktraceLevel(scope: string, level: string): void;
  /** Puts every level back to the one the options gave. */
  reset(): void;
  flush(): void;
  /** Closes file targets; later records are dropped. */
  close(): void;
}

const PINO_LEVEL: Readonly<Record<LogLevel, pino.LevelWithSilent>> = {
  debug: 'debug', info: 'info', warn: 'warn', error: 'error', fatal: 'fatal', none: 'silent',
};
const LEVEL_VALUE: Readonly<Record<LogLevel, number>> = { debug: 20, info: 30, warn: 40, error: 50, fatal: 60, none: Infinity };

/**
 * Validates the logging options against `scopes` (a program's SCOPES) and builds one pino logger per
 * scope writing to every target. Throws LogConfigError for an unknown scope or level or a target that
 * cannot be opened. Unlisted scopes log at info with no stack traces, as in Istio.
 */
export function createLogging(options: LogOptions, scopes: readonly string[], deps: LoggingDeps = {}): Logging {
  const names = realScopes(scopes);
  if (!names.includes(DEFAULT_SCOPE)) throw new LogConfigError(`the scope list must include "${DEFAULT_SCOPE}"`);
  const output = parseScopeLevels(options.outputLevels, scopes);
  const stack = parseScopeLevels(options.stacktraceLevels, scopes);
  const table = new ScopeTable(names, output, stack, parseScopeList(options.callerScopes, scopes));
  const clock = deps.clock;
  const now = clock ? (): number => clock.wallNow() : (): number => performance.timeOrigin + performance.now();
  const sinks = openSinks(options, deps, now);
  let closed = false;

  const loggers = new LoggerIndex();
  const base = pino(
    {
      level: 'debug',
      base: null,
      messageKey: 'msg',
      timestamp: () => `,"time":"${formatLogTime(now())}"`,
      formatters: { level: (label) => ({ level: label }) },
      mixin: (_merge, level, logger) => decorate(table.get(loggers.scopeOf(logger)), level),
      onChild: (child) => {
        const scope = loggers.add(child, (s) => table.has(s));
        child.level = PINO_LEVEL[table.get(scope).outputLevel];
      },
    },
    {
      write(chunk: string): void {
        if (closed) return;
        const text = options.asJson ? chunk : formatConsoleLine(JSON.parse(chunk) as Record<string, unknown>);
        for (const sink of sinks) sink.write(text);
      },
    },
  );
  const byScope = new Map(names.map((n) => [n, base.child({ scope: n })]));
  const apply = (scope: string): void => {
    for (const logger of loggers.of(scope)) logger.level = PINO_LEVEL[table.get(scope).outputLevel];
  };
  const set = (scope: string, level: string, field: 'outputLevel' | 'stacktraceLevel'): void => {
    checkScope(scope, scopes, `level change "${scope}:${level}"`);
    const parsed = parseLogLevel(level, `level change "${scope}:${level}"`);
    for (const s of scope === ALL_SCOPES ? names : [scope]) {
      table.set(s, field, parsed);
      apply(s);
    }
  };

  return {
    root: byScope.get(DEFAULT_SCOPE)!,
    scope(name: string): Logger {
      const logger = byScope.get(name);
      if (!logger) throw new LogConfigError(`unknown log scope "${name}" (valid scopes: ${names.join(', ')})`);
      return logger;
    },
    scopes: () => names,
    levels: () => table.all(),
    setLevel: (scope, level) => set(scope, level, 'outputLevel'),
    setStacktraceLevel: (scope, level) => set(scope, level, 'stacktraceLevel'),
    reset(): void {
      table.reset();
      for (const n of names) apply(n);
    },
    flush: () => sinks.forEach((s) => s.flush()),
    close(): void {
      if (closed) return;
      closed = true;
      for (const s of sinks) s.close();
    },
  };
}

function decorate(state: ScopeState, level: number): Record<string, string> {
  const wantStack = level >= LEVEL_VALUE[state.stacktraceLevel];
  if (!state.logCallers && !wantStack) return {};
  const frames = callerFrames();
  const extra: Record<string, string> = {};
  if (state.logCallers) extra['caller'] = frames[0] === undefined ? 'unknown' : shortCaller(frames[0]);
  if (wantStack) extra['stack'] = frames.join('\n');
  return extra;
}

function openSinks(options: LogOptions, deps: LoggingDeps, now: () => number): LogSink[] {
  const sinks: LogSink[] = [];
  try {
    for (const target of options.targets) sinks.push(openTarget(target));
    const r = options.rotate;
    if (r.path !== '') {
      const maxSizeBytes = deps.rotateMaxSizeBytes ?? r.maxSizeMB * 1024 * 1024;
      sinks.push(openRotating(r.path, { maxSizeBytes, maxAgeDays: r.maxAgeDays, maxBackups: r.maxBackups }, now));
    }
    return sinks;
  } catch (err) {
    for (const s of sinks) s.close();
    throw err;
  }
}

/** Every logger made from the root, by scope, held weakly so short-lived children can be collected. */
class LoggerIndex {
  readonly #refs = new Map<string, Set<WeakRef<Logger>>>();
  readonly #scopeOf = new WeakMap<Logger, string>();
  #added = 0;

  add(logger: Logger, known: (scope: string) => boolean): string {
    const bound = (logger.bindings() as { scope?: unknown }).scope;
    const scope = typeof bound === 'string' && known(bound) ? bound : DEFAULT_SCOPE;
    this.#scopeOf.set(logger, scope);
    let set = this.#refs.get(scope);
    if (!set) this.#refs.set(scope, (set = new Set()));
    set.add(new WeakRef(logger));
    if (++this.#added % 1024 === 0) this.#prune();
    return scope;
  }

  scopeOf(logger: Logger): string {
    return this.#scopeOf.get(logger) ?? DEFAULT_SCOPE;
  }

  *of(scope: string): Iterable<Logger> {
    for (const ref of this.#refs.get(scope) ?? []) {
      const logger = ref.deref();
      if (logger) yield logger;
    }
  }

  #prune(): void {
    for (const set of this.#refs.values()) for (const ref of set) if (!ref.deref()) set.delete(ref);
  }
}
