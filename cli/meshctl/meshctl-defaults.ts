/**
 * Where meshctl flags get their values when the command line does not give them: a `MESHCTL_*`
 * variable, then the MESHCONFIG file (a YAML map of flag name to value), then the declared default.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { parse as ParseYaml } from 'yaml';
import type { Env } from '../../core/startup.js';
import { CliError, type FlagDefaultSource } from '../framework/index.js';

/** Flags a `MESHCTL_*` variable overrides, and the variable. */
export const ENV_OVERRIDES = {
  authority: 'MESHCTL_AUTHORITY',
  'cert-dir': 'MESHCTL_CERT_DIR',
  insecure: 'MESHCTL_INSECURE',
  meshNamespace: 'MESHCTL_MESHNAMESPACE',
  plaintext: 'MESHCTL_PLAINTEXT',
  'xds-address': 'MESHCTL_XDS_ADDRESS',
  'xds-port': 'MESHCTL_XDS_PORT',
} as const;

/** A flag's value from its `MESHCTL_*` variable, when that variable is set. */
function fromEnv(env: Env, flagName: string): string | undefined {
  const name = (ENV_OVERRIDES as Record<string, (typeof ENV_OVERRIDES)[keyof typeof ENV_OVERRIDES]>)[flagName];
  if (name === undefined || !env.isSet(name)) return undefined;
  switch (name) {
    case 'MESHCTL_INSECURE':
    case 'MESHCTL_PLAINTEXT':
      return String(env.bool(name));
    case 'MESHCTL_XDS_PORT':
      return String(env.int(name));
    default:
      return env.string(name);
  }
}

/**
 * Reads the MESHCONFIG file: a YAML map from flag name to a scalar or a list. A missing file means no
 * values; a file that is not such a map is a CliError naming the file and the key.
 */
export function readMeshConfig(path: string, read: (p: string) => string = (p) => readFileSync(p, 'utf8')): ReadonlyMap<string, string> {
  let text: string;
  try {
    text = read(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw new CliError(`MESHCONFIG ${path}: ${(e as Error).message}`);
  }
  let doc: unknown;
  try {
    // NOTE: every meshctl run reads this file; the YAML library loads (synchronously) only when there is one.
    const { parse: parseYaml } = createRequire(import.meta.url)('yaml') as { parse: typeof ParseYaml };
    doc = parseYaml(text);
  } catch (e) {
    throw new CliError(`MESHCONFIG ${path}: not valid YAML: ${(e as Error).message}`);
  }
  if (doc === null || doc === undefined) return new Map();
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new CliError(`MESHCONFIG ${path}: must be a map of flag name to value`);
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(doc as Record<string, unknown>)) {
    if (Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null)) out.set(key, value.map(String).join(','));
    else if (value !== null && typeof value === 'object') throw new CliError(`MESHCONFIG ${path}: key "${key}" must be a scalar or a list`);
    else out.set(key, value === null ? '' : String(value));
  }
  return out;
}

/** The MESHCONFIG path: the variable, else `$HOME/.meshctl/config.yaml`. */
export function meshConfigPath(env: Env, home: string): string {
  const text = env.isSet('MESHCONFIG') ? (env.string('MESHCONFIG') ?? '') : '$HOME/.meshctl/config.yaml';
  return text.replace(/^\$HOME(?=\/|$)|^~(?=\/|$)/, home);
}

/** The default sources in precedence order: `MESHCTL_*` variables, then the MESHCONFIG file. */
export function meshctlDefaults(env: Env, home: string, read?: (p: string) => string): FlagDefaultSource[] {
  const path = meshConfigPath(env, home);
  const file = readMeshConfig(path, read);
  return [
    (flagName) => {
      const value = fromEnv(env, flagName);
      return value === undefined ? undefined : { value, origin: `$${ENV_OVERRIDES[flagName as keyof typeof ENV_OVERRIDES]}` };
    },
    (flagName) => {
      const value = file.get(flagName);
      return value === undefined ? undefined : { value, origin: `MESHCONFIG ${path}` };
    },
  ];
}
