import type { LogLevel } from './log-levels.js';

/** One scope's settings, in the shape the introspection API shows. */
export interface ScopeState {
  readonly name: string;
  readonly outputLevel: LogLevel;
  readonly stacktraceLevel: LogLevel;
  readonly logCallers: boolean;
}

/** The current and initial levels of every scope. */
export class ScopeTable {
  readonly #initial: ReadonlyMap<string, ScopeState>;
  #current: Map<string, ScopeState>;

  constructor(names: readonly string[], output: ReadonlyMap<string, LogLevel>, stack: ReadonlyMap<string, LogLevel>, callers: ReadonlySet<string>) {
    this.#initial = new Map(
      names.map((name) => [
        name,
        { name, outputLevel: output.get(name) ?? 'info', stacktraceLevel: stack.get(name) ?? 'none', logCallers: callers.has(name) },
      ]),
    );
    this.#current = new Map(this.#initial);
  }

  has(name: string): boolean {
    return this.#current.has(name);
  }

  /** The state of `name`; the default scope's for a name not in the table. */
  get(name: string): ScopeState {
    return this.#current.get(name) ?? this.#current.get('default')!;
  }

  set(name: string, field: 'outputLevel' | 'stacktraceLevel', level: LogLevel): void {
    this.#current.set(name, { ...this.get(name), [field]: level });
  }

  all(): ScopeState[] {
    return [...this.#current.values()];
  }

  reset(): void {
    this.#current = new Map(this.#initial);
  }
}
