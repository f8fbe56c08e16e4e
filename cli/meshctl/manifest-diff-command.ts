/**
 * `meshctl manifest diff <a> <b>`: istioctl's object-level comparison of two manifest files (or, with
 * `-r`, two directories of YAML files). Prints `Manifests are identical` and exits 0, or `Differences in
 * manifests are:` and each differing object, and exits 1.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { diffManifests, ManifestDiffError } from '../../install/index.js';
import { CliError, type RunContext } from '../framework/index.js';

function readYamlTree(dir: string): string {
  const parts: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(name)) parts.push(readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  return parts.join('\n---\n');
}

function readInput(path: string, directory: boolean): string {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    throw new CliError(`manifest diff: ${path}: ${(e as Error).message}`);
  }
  if (directory !== st.isDirectory()) throw new CliError(`manifest diff: ${path} is ${st.isDirectory() ? 'a directory (use -r to compare directories)' : 'not a directory (-r compares directories)'}`);
  return directory ? readYamlTree(path) : readFileSync(path, 'utf8');
}

/** The `run` of `meshctl manifest diff`. */
export function runManifestDiff(ctx: RunContext): number {
  const { flags, io, args } = ctx;
  const [a, b] = args as [string, string];
  const dir = flags.bool('directory');
  let diff: string;
  try {
    diff = diffManifests(readInput(a, dir), readInput(b, dir), { select: flags.string('select'), ignore: flags.string('ignore'), rename: flags.string('rename') }, [a, b]);
  } catch (e) {
    if (e instanceof ManifestDiffError) throw new CliError(`manifest diff: ${e.message}`);
    throw e;
  }
  if (diff === '') {
    io.stdout.write('Manifests are identical\n');
    return 0;
  }
  io.stdout.write(`Differences in manifests are:\n${diff}\n`);
  return 1;
}
