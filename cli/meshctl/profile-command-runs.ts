/**
 * The bodies of `meshctl profile list|dump|diff`, as istioctl's: `list` names the profiles of the
 * manifests folder; `dump [<profile>]` prints the effective MeshOperator of a profile with `-f` files
 * over it (`-o yaml|json|flags`, `--config-path` for a subtree); `diff <a> <b>` prints a line diff of two
 * profiles' dumps (a name or a file each) and exits 1 when they differ.
 */
import { stringify } from 'yaml';
import { lineDiff, listProfiles, MESH_OPERATOR_API_VERSION, PROFILES_DIR, resolveMeshOperator } from '../../install/index.js';
import type { GoMap } from '../../templates/index.js';
import { CliError, type RunContext } from '../framework/index.js';
import { manifestsFlag, profilesDirOf } from './manifest-generate-command.js';

const isMap = (v: unknown): v is GoMap => v !== null && typeof v === 'object' && !Array.isArray(v);

function profilesDir(ctx: RunContext): string {
  return profilesDirOf(manifestsFlag(ctx)) ?? PROFILES_DIR;
}

/** The effective MeshOperator object of profile `name` (or the files' profile) with `files` over it. */
function operatorOf(name: string | undefined, files: readonly string[], dir: string): GoMap {
  const { profile, spec } = resolveMeshOperator({ files, sets: name === undefined ? [] : [`profile=${name.replaceAll(',', '\\,')}`], profilesDir: dir });
  const { profile: _, ...rest } = spec;
  return { apiVersion: MESH_OPERATOR_API_VERSION, kind: 'MeshOperator', spec: { profile, ...rest } };
}

/** The node at a dotted path (`components.pilot`, `spec.values.global`, `components.ingressGateways.0`). */
function subtree(root: GoMap, path: string): unknown {
  if (path === '') return root;
  const parts = path.split('.').filter((p) => p !== '');
  let node: unknown = parts[0] === 'spec' || parts[0] === 'apiVersion' || parts[0] === 'kind' ? root : root['spec'];
  for (const p of parts) {
    const idx = /^\[?(\d+)\]?$/.exec(p);
    if (Array.isArray(node) && idx) node = node[Number(idx[1])];
    else if (isMap(node)) node = node[p];
    else node = undefined;
    if (node === undefined) throw new CliError(`--config-path ${path}: no such path in the MeshOperator`);
  }
  return node;
}

const escapeSet = (s: string): string => s.replace(/[\\,]/g, (c) => `\\${c}`);

/** `--set` lines that rebuild `node` (leaves only; paths relative to spec). */
function toFlags(node: unknown, path: string, out: string[]): string[] {
  if (Array.isArray(node)) node.forEach((v, i) => toFlags(v, `${path}[${i}]`, out));
  else if (isMap(node)) {
    for (const [k, v] of Object.entries(node)) toFlags(v, path === '' ? k.replaceAll('.', '\\.') : `${path}.${k.replaceAll('.', '\\.')}`, out);
  } else out.push(`--set ${path}=${node === null ? 'null' : escapeSet(String(node))}`);
  return out;
}

/** The `run` of `meshctl profile list`. */
export function runProfileList(ctx: RunContext): number {
  ctx.io.stdout.write(`Mesh configuration profiles:\n${listProfiles(profilesDir(ctx)).map((p) => `    ${p}\n`).join('')}`);
  return 0;
}

/** The `run` of `meshctl profile dump`. */
export function runProfileDump(ctx: RunContext): number {
  const { flags, io, args } = ctx;
  const format = flags.string('output');
  if (!['yaml', 'json', 'flags'].includes(format)) throw new CliError(`--output ${format}: must be one of json|yaml|flags`);
  const op = operatorOf(args[0], flags.strings('filename'), profilesDir(ctx));
  const path = flags.string('config-path');
  const node = subtree(op, path);
  if (format === 'json') io.stdout.write(`${JSON.stringify(node, null, 2)}\n`);
  else if (format === 'yaml') io.stdout.write(stringify(node, { lineWidth: 0 }));
  else {
    const rel = path === '' ? '' : path.replace(/^spec\.?/, '');
    const start = path === '' ? op['spec'] : node;
    io.stdout.write(toFlags(start, rel, []).sort().map((l) => `${l}\n`).join(''));
  }
  return 0;
}

/** The `run` of `meshctl profile diff`. */
export function runProfileDiff(ctx: RunContext): number {
  const [a, b] = ctx.args as [string, string];
  const dir = profilesDir(ctx);
  // NOTE: the profile's own name is left out: two profiles that install the same are identical.
  const dump = (name: string): string => {
    const op = operatorOf(name, [], dir);
    delete (op['spec'] as GoMap)['profile'];
    return stringify(op, { lineWidth: 0 });
  };
  const diff = lineDiff(dump(a), dump(b));
  if (diff === '') {
    ctx.io.stdout.write('Profiles are identical\n');
    return 0;
  }
  ctx.io.stdout.write(`The difference between profiles:\n${diff}`);
  return 1;
}
