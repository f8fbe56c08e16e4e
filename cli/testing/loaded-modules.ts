/** Test helper: which modules a built program loads for one command line (see module-recorder.ts). */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { ProgramName } from '../../core/index.js';
import { programEnv, REPO_ROOT } from './program-process.js';

/** The URLs of every module `bin/<program> ...args` loaded (ours, node_modules' and node: built-ins), and its exit output. */
export async function loadedModules(program: ProgramName, args: readonly string[]): Promise<{ readonly urls: readonly string[]; readonly stdout: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'mesh-loaded-'));
  try {
    const file = join(dir, 'modules.txt');
    const recorder = pathToFileURL(join(REPO_ROOT, 'dist', 'cli', 'testing', 'module-recorder.js')).href;
    const { stdout } = await promisify(execFile)(process.execPath, [`--import=${recorder}`, join(REPO_ROOT, 'bin', program), ...args], {
      cwd: REPO_ROOT,
      env: programEnv({ MESH_LOADED_MODULES_FILE: file }),
    });
    return { urls: readFileSync(file, 'utf8').split('\n').filter((l) => l !== ''), stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The npm packages among `urls` (`@scope/name` or `name`), sorted, once each. */
export function packagesOf(urls: readonly string[]): string[] {
  const names = new Set<string>();
  for (const u of urls) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u);
    if (m) names.add(m[1]!);
  }
  return [...names].sort();
}
