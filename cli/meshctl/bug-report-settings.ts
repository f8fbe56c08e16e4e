/**
 * bug-report's settings, read once: the flags, then `--filename`'s YAML file over them (the spec: "applied over
 * the default values and flag settings, with lists being replaced per JSON merge semantics"). The file's keys
 * are the flags' names in camelCase (`meshNamespace`, `fullSecrets`, `include`, `startTime`, ...).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { DurationError, parseDuration } from '../../core/index.js';
import { CliError, type RunContext } from '../framework/index.js';

/** Everything bug-report reads from its flags and file. */
export interface BugReportSettings {
  readonly context: string;
  readonly criticalErrs: readonly string[];
  readonly dir: string;
  readonly dryRun: boolean;
  readonly durationMs: number;
  readonly endTime: string;
  readonly exclude: readonly string[];
  readonly fullSecrets: boolean;
  readonly ignoreErrs: readonly string[];
  readonly include: readonly string[];
  readonly meshNamespace: string;
  readonly outputDir: string;
  readonly rqConcurrency: number;
  readonly startTime: string;
  readonly timeoutMs: number;
}

type Kind = 'string' | 'bool' | 'list' | 'duration' | 'int';
/** File key -> flag name and type. */
const KEYS: Readonly<Record<keyof BugReportSettings, readonly [string, Kind]>> = {
  context: ['context', 'string'],
  criticalErrs: ['critical-errs', 'list'],
  dir: ['dir', 'string'],
  dryRun: ['dry-run', 'bool'],
  durationMs: ['duration', 'duration'],
  endTime: ['end-time', 'string'],
  exclude: ['exclude', 'list'],
  fullSecrets: ['full-secrets', 'bool'],
  ignoreErrs: ['ignore-errs', 'list'],
  include: ['include', 'list'],
  meshNamespace: ['mesh-namespace', 'string'],
  outputDir: ['output-dir', 'string'],
  rqConcurrency: ['rq-concurrency', 'int'],
  startTime: ['start-time', 'string'],
  timeoutMs: ['timeout', 'duration'],
};

/** The name a setting has in the file: the flag's name in camelCase. */
const fileKey = (flagName: string): string => flagName.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

function fromFile(file: string, key: string, kind: Kind, value: unknown): unknown {
  const bad = (want: string): never => {
    throw new CliError(`--filename ${file}: ${key} must be ${want}, not ${JSON.stringify(value)}`);
  };
  switch (kind) {
    case 'string':
      return typeof value === 'string' ? value : bad('a string');
    case 'bool':
      return typeof value === 'boolean' ? value : bad('true or false');
    case 'int':
      return Number.isInteger(value) ? value : bad('an integer');
    case 'list':
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : bad('a list of strings');
    case 'duration':
      if (typeof value !== 'string') return bad('a duration like 30m or 1h');
      try {
        return parseDuration(value);
      } catch (e) {
        if (e instanceof DurationError) return bad('a duration like 30m or 1h');
        throw e;
      }
  }
}

/** Reads the flags, then the file over them. @throws CliError naming the file and key of a bad entry */
export function bugReportSettings(ctx: RunContext): BugReportSettings {
  const f = ctx.flags;
  const out: Record<string, unknown> = {};
  for (const [name, [flagName, kind]] of Object.entries(KEYS)) {
    out[name] = kind === 'string' ? f.string(flagName) : kind === 'bool' ? f.bool(flagName) : kind === 'list' ? [...f.strings(flagName)] : kind === 'int' ? f.number(flagName) : f.duration(flagName);
  }
  const file = f.string('filename');
  if (file === '') return out as unknown as BugReportSettings;
  let doc: unknown;
  try {
    doc = parse(readFileSync(resolve(process.cwd(), file), 'utf8'));
  } catch (e) {
    throw new CliError(`--filename ${file}: ${(e as Error).message}`);
  }
  if (doc === null || doc === undefined) return out as unknown as BugReportSettings;
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new CliError(`--filename ${file}: the file must hold a mapping of settings (keys like meshNamespace, include, startTime)`);
  const byFileKey = new Map(Object.entries(KEYS).map(([name, [flagName, kind]]) => [fileKey(flagName), { name, kind }]));
  for (const [key, value] of Object.entries(doc)) {
    const k = byFileKey.get(key);
    if (!k) throw new CliError(`--filename ${file}: unknown key ${key} (known: ${[...byFileKey.keys()].join(', ')})`);
    out[k.name] = fromFile(file, key, k.kind, value);
  }
  return out as unknown as BugReportSettings;
}
