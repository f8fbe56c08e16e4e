/**
 * Flag declarations and values, modelled on Go's pflag: the same type names in help, the same default
 * display (`(default "x")` for strings, `(default [a,b])` for lists) and the same value syntax.
 */
import { formatDuration, parseDuration, DurationError } from '../../core/startup.js';

/** The flag types the programs use (pflag's names, plus klog's `Level`). */
export const FLAG_KINDS = [
  'string',
  'bool',
  'int',
  'int32',
  'uint16',
  'uint32',
  'float32',
  'duration',
  'stringSlice',
  'stringArray',
  'stringToString',
  'level',
] as const;
export type FlagKind = (typeof FLAG_KINDS)[number];

/** The value a flag of each kind holds once parsed. Durations are milliseconds. */
export interface FlagValueOf {
  string: string;
  bool: boolean;
  int: number;
  int32: number;
  uint16: number;
  uint32: number;
  float32: number;
  duration: number;
  stringSlice: readonly string[];
  stringArray: readonly string[];
  stringToString: Readonly<Record<string, string>>;
  level: string | number;
}
export type FlagValue = FlagValueOf[FlagKind];

/** One declared flag. Build these with the `flag.*` helpers. */
export interface Flag<K extends FlagKind = FlagKind> {
  readonly kind: K;
  readonly name: string;
  readonly short?: string;
  readonly usage: string;
  readonly default: FlagValueOf[K];
  /** For `level` flags: the named levels accepted (case-insensitive); absent means a number >= 0. */
  readonly levels?: readonly string[];
  /** Hidden flags parse but are left out of help and completion. */
  readonly hidden?: boolean;
}

/** Options common to every flag declaration. */
export interface FlagOptions {
  short?: string;
  hidden?: boolean;
}

/** A value that does not fit its flag's type; the message names the flag (pflag's wording). */
export class FlagValueError extends Error {
  override readonly name = 'FlagValueError';
  constructor(flagName: string, text: string, why: string) {
    super(`invalid argument "${text}" for "--${flagName}" flag: ${why}`);
  }
}

function make<K extends FlagKind>(kind: K, name: string, def: FlagValueOf[K], usage: string, o: FlagOptions = {}): Flag<K> {
  if (o.short !== undefined && o.short.length !== 1) throw new Error(`flag --${name}: short form must be one letter`);
  return { kind, name, usage, default: def, ...(o.short ? { short: o.short } : {}), ...(o.hidden ? { hidden: true } : {}) };
}

/** Flag builders: `flag.string('output', '', 'Output format', { short: 'o' })`. */
export const flag = {
  string: (name: string, def: string, usage: string, o?: FlagOptions): Flag<'string'> => make('string', name, def, usage, o),
  bool: (name: string, def: boolean, usage: string, o?: FlagOptions): Flag<'bool'> => make('bool', name, def, usage, o),
  int: (name: string, def: number, usage: string, o?: FlagOptions): Flag<'int'> => make('int', name, def, usage, o),
  int32: (name: string, def: number, usage: string, o?: FlagOptions): Flag<'int32'> => make('int32', name, def, usage, o),
  uint16: (name: string, def: number, usage: string, o?: FlagOptions): Flag<'uint16'> => make('uint16', name, def, usage, o),
  uint32: (name: string, def: number, usage: string, o?: FlagOptions): Flag<'uint32'> => make('uint32', name, def, usage, o),
  float32: (name: string, def: number, usage: string, o?: FlagOptions): Flag<'float32'> => make('float32', name, def, usage, o),
  /** A Go duration; `def` in milliseconds. */
  duration: (name: string, def: number, usage: string, o?: FlagOptions): Flag<'duration'> => make('duration', name, def, usage, o),
  /** Comma-separated list, repeatable: `--x a,b --x c` gives `[a b c]`. */
  stringSlice: (name: string, def: readonly string[], usage: string, o?: FlagOptions): Flag<'stringSlice'> =>
    make('stringSlice', name, def, usage, o),
  /** Repeatable, no comma splitting: `--set a=1,2 --set b=3` gives `[a=1,2 b=3]`. */
  stringArray: (name: string, def: readonly string[], usage: string, o?: FlagOptions): Flag<'stringArray'> =>
    make('stringArray', name, def, usage, o),
  /** `a=b,c=d`, repeatable (later keys win). */
  stringToString: (name: string, def: Readonly<Record<string, string>>, usage: string, o?: FlagOptions): Flag<'stringToString'> =>
    make('stringToString', name, def, usage, o),
  /**
   * A level: numeric verbosity (`--vklog=4`) when `levels` is absent, else one of the named levels
   * (`Info`, `Warning`, `Error`), matched case-insensitively and stored in the declared spelling.
   */
  level: (name: string, def: string | number, usage: string, o?: FlagOptions & { levels?: readonly string[] }): Flag<'level'> => ({
    ...make('level', name, def, usage, o),
    ...(o?.levels ? { levels: o.levels } : {}),
  }),
};

/** pflag's type name shown in help (`strings` for a string slice; nothing for bool). */
export function typeName(f: Flag): string {
  switch (f.kind) {
    case 'bool':
      return '';
    case 'stringSlice':
      return 'strings';
    case 'level':
      return 'Level';
    default:
      return f.kind;
  }
}

/** True when the flag takes no value (`--force` means `--force=true`). */
export function isBoolFlag(f: Flag): boolean {
  return f.kind === 'bool';
}

const INT_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  int: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [-2147483648, 2147483647],
  uint16: [0, 65535],
  uint32: [0, 4294967295],
};

/** Parses Go's strconv.ParseBool forms. */
export function parseBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

function splitList(text: string): string[] {
  return text === '' ? [] : text.split(',').map((s) => s.trim());
}

/**
 * Parses one occurrence of a flag. `previous` is the value so far and `first` says whether this is the
 * first explicit occurrence (lists replace their default on the first one and append afterwards).
 */
export function parseFlagValue(f: Flag, text: string, previous: FlagValue, first: boolean): FlagValue {
  const bad = (why: string): never => {
    throw new FlagValueError(f.name, text, why);
  };
  switch (f.kind) {
    case 'string':
      return text;
    case 'bool':
      return parseBool(text) ?? bad('not a bool (use true or false)');
    case 'int':
    case 'int32':
    case 'uint16':
    case 'uint32': {
      const [lo, hi] = INT_RANGES[f.kind]!;
      if (!/^[+-]?\d+$/.test(text.trim())) bad(`not an ${f.kind === 'int' || f.kind === 'int32' ? f.kind : `${f.kind} (${lo} to ${hi})`}`);
      const n = Number(text.trim());
      if (n < lo || n > hi) bad(`out of range for ${f.kind} (${lo} to ${hi})`);
      return n;
    }
    case 'float32': {
      const n = Number(text.trim());
      if (text.trim() === '' || !Number.isFinite(n)) bad('not a number');
      return n;
    }
    case 'duration':
      try {
        return parseDuration(text);
      } catch (e) {
        if (e instanceof DurationError) return bad(e.message);
        throw e;
      }
    case 'stringSlice': {
      const items = splitList(text);
      return first ? items : [...(previous as readonly string[]), ...items];
    }
    case 'stringArray':
      return first ? [text] : [...(previous as readonly string[]), text];
    case 'stringToString': {
      const out: Record<string, string> = first ? {} : { ...(previous as Record<string, string>) };
      for (const pair of splitList(text)) {
        const eq = pair.indexOf('=');
        if (eq <= 0) bad(`${pair} must be formatted as key=value`);
        out[pair.slice(0, eq)] = pair.slice(eq + 1);
      }
      return out;
    }
    case 'level': {
      if (f.levels) {
        const match = f.levels.find((l) => l.toLowerCase() === text.trim().toLowerCase());
        return match ?? bad(`not a level (use one of ${f.levels.join(', ')})`);
      }
      if (!/^\d+$/.test(text.trim())) bad('not a level (use a number, 0 or more)');
      return Number(text.trim());
    }
  }
}

/** The value as text, the way pflag prints it (`[a,b]` for lists, Go durations, `[k=v]` for maps). */
export function formatFlagValue(f: Flag, v: FlagValue): string {
  switch (f.kind) {
    case 'duration':
      return formatDuration(v as number);
    case 'stringSlice':
    case 'stringArray':
      return `[${(v as readonly string[]).join(',')}]`;
    case 'stringToString':
      return `[${Object.entries(v as Record<string, string>)
        .map(([k, x]) => `${k}=${x}`)
        .join(',')}]`;
    default:
      return String(v);
  }
}

/**
 * The ` (default X)` suffix of a help line, or '' when the default is the zero value (pflag hides
 * zero defaults). Strings are quoted like pflag's `%q`. Durations always show, `0s` included.
 */
export function defaultSuffix(f: Flag): string {
  const text = formatFlagValue(f, f.default);
  if (f.kind === 'duration') return ` (default ${text})`;
  if (text === '' || text === '[]' || text === 'false' || (text === '0' && f.kind !== 'level')) return '';
  if (f.kind === 'level' && text === '0') return '';
  return f.kind === 'string' ? ` (default ${JSON.stringify(text)})` : ` (default ${text})`;
}
