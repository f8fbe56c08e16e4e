/**
 * bug-report's include and exclude specs, `ns/dep/pod/labels/annotations/container` (Istio's
 * `--include`/`--exclude`): each part optional (empty or missing matches anything), comma-separated values
 * within a part OR-ed, label and annotation parts as `key=value` with glob values, every other name a glob.
 * A container's log is kept when it matches at least one include spec (any, when there are none) and no
 * exclude spec.
 */

/** One parsed spec. Empty arrays match anything. */
export interface LogSpec {
  readonly text: string;
  readonly namespaces: readonly string[];
  readonly deployments: readonly string[];
  readonly pods: readonly string[];
  readonly labels: readonly (readonly [string, string])[];
  readonly annotations: readonly (readonly [string, string])[];
  readonly containers: readonly string[];
}

/** A spec that cannot be read; the message names the flag, the spec and the part. */
export class LogSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogSpecError';
  }
}

/** The container a spec is matched against, with its pod's facts. */
export interface LogTarget {
  readonly namespace: string;
  /** The Deployment owning the pod (through its ReplicaSet), or empty. */
  readonly deployment: string;
  readonly pod: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly container: string;
}

const PARTS = ['namespace', 'deployment', 'pod', 'label', 'annotation', 'container'] as const;

function globRegExp(glob: string): RegExp {
  const body = glob.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${body}$`);
}

/** Whether `value` matches the `*` glob `glob`. */
export function globMatches(glob: string, value: string): boolean {
  return glob.includes('*') ? globRegExp(glob).test(value) : glob === value;
}

function pairs(part: string, what: string, flagName: string, text: string): [string, string][] {
  return part
    .split(',')
    .filter((s) => s !== '')
    .map((kv) => {
      const i = kv.indexOf('=');
      if (i <= 0) throw new LogSpecError(`--${flagName} "${text}": ${what} "${kv}" is not <key>=<value>`);
      const key = kv.slice(0, i);
      if (key.includes('*')) throw new LogSpecError(`--${flagName} "${text}": ${what} key "${key}" cannot be a glob (only values can)`);
      return [key, kv.slice(i + 1)];
    });
}

/**
 * Splits at `/`, except inside the label and annotation parts, where keys may hold a `/`
 * (`sidecar.mesh.io/status=*`): an item there without `=` yet continues into the next piece.
 */
function splitParts(text: string): string[] {
  const parts: string[] = [];
  for (const piece of text.split('/')) {
    const i = parts.length - 1;
    const last = parts[i]?.split(',').at(-1) ?? '';
    if ((i === 3 || i === 4) && last !== '' && !last.includes('=')) parts[i] = `${parts[i]}/${piece}`;
    else parts.push(piece);
  }
  return parts;
}

/** Parses one spec. @throws LogSpecError naming `flagName`, the spec and what was wrong */
export function parseLogSpec(text: string, flagName: string): LogSpec {
  const parts = splitParts(text);
  if (parts.length > PARTS.length) throw new LogSpecError(`--${flagName} "${text}": ${parts.length} parts; the form is ns/dep/pod/labels/annotations/container (at most 6)`);
  const list = (i: number): string[] => (parts[i] ?? '').split(',').filter((s) => s !== '');
  return {
    text,
    namespaces: list(0),
    deployments: list(1),
    pods: list(2),
    labels: pairs(parts[3] ?? '', 'label', flagName, text),
    annotations: pairs(parts[4] ?? '', 'annotation', flagName, text),
    containers: list(5),
  };
}

const anyGlob = (globs: readonly string[], value: string): boolean => globs.length === 0 || globs.some((g) => globMatches(g, value));
const anyPair = (ps: readonly (readonly [string, string])[], m: Readonly<Record<string, string>>): boolean =>
  ps.length === 0 || ps.some(([k, v]) => m[k] !== undefined && globMatches(v, m[k]));

/** Whether one spec matches a container. */
export function logSpecMatches(spec: LogSpec, t: LogTarget): boolean {
  return (
    anyGlob(spec.namespaces, t.namespace) &&
    anyGlob(spec.deployments, t.deployment) &&
    anyGlob(spec.pods, t.pod) &&
    anyPair(spec.labels, t.labels) &&
    anyPair(spec.annotations, t.annotations) &&
    anyGlob(spec.containers, t.container)
  );
}

/** The rule of the flags: at least one include (any, when none is given) and no exclude. */
export function logSelected(include: readonly LogSpec[], exclude: readonly LogSpec[], t: LogTarget): boolean {
  return (include.length === 0 || include.some((s) => logSpecMatches(s, t))) && !exclude.some((s) => logSpecMatches(s, t));
}

/**
 * Whether a whole namespace is left out: an exclude spec that names it and constrains nothing else
 * (the defaults `orch-system`, ...). Its objects are then not collected either.
 */
export function namespaceExcluded(exclude: readonly LogSpec[], namespace: string): boolean {
  return exclude.some(
    (s) => s.namespaces.length > 0 && anyGlob(s.namespaces, namespace) && s.deployments.length + s.pods.length + s.labels.length + s.annotations.length + s.containers.length === 0,
  );
}
