// Shared by the launchers beside this file: checks the Node.js version first (package.json's engines), turns on
// Node's module compile cache, then runs dist/cli/<program>/main.js, or says to build first.
import { readFileSync } from 'node:fs';
import module from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/** Exits 1 naming what is needed when this Node.js is older than package.json's `engines.node` (`>=X.Y`). */
function checkNodeVersion(program) {
  const engines = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines?.node ?? '';
  const want = /^>=\s*(\d+)(?:\.(\d+))?/.exec(engines);
  if (!want) return;
  const [major, minor] = process.versions.node.split('.').map(Number);
  const [wantMajor, wantMinor] = [Number(want[1]), Number(want[2] ?? 0)];
  if (major > wantMajor || (major === wantMajor && minor >= wantMinor)) return;
  console.error(
    `${program} needs Node.js ${wantMajor}.${wantMinor} or newer (24 LTS recommended); this is Node.js ${process.versions.node} (${process.execPath}).\n` +
      'Run `source hack/node-env.sh` in the repository to install Node 24 and put it first on PATH.',
  );
  process.exit(1);
}

/**
 * Turns on Node's on-disk cache of compiled modules (V8 code cache), so a run after the first skips parsing
 * and compiling the modules it loads: under ~/.cache/mesh/compile-cache, else the OS temp dir.
 * `NODE_COMPILE_CACHE=<dir>` picks another directory, `NODE_DISABLE_COMPILE_CACHE=1` turns it off.
 */
function enableCompileCache() {
  // NOTE: a cache that cannot be written (read-only HOME in a container) only costs speed, never the run.
  const dirs = [process.env.NODE_COMPILE_CACHE, homedir() ? join(homedir(), '.cache', 'mesh', 'compile-cache') : undefined, join(tmpdir(), 'mesh-compile-cache')];
  for (const dir of dirs) {
    if (!dir) continue;
    try {
      const { status } = module.enableCompileCache(dir);
      if (status !== module.constants.compileCacheStatus.FAILED) return;
    } catch {
      // try the next directory
    }
  }
}

/**
 * Re-executes this process (same pid, arguments and environment, through `process.execve`) with V8 flags
 * that must be set before the heap exists, unless the command line or NODE_OPTIONS already sets them.
 * NOTE: Node 24 sizes the young generation from the heap limit: up to 64 MB per semi-space (134 MB of new
 * space) on these machines, garbage that meshd's push bursts fill before each scavenge; 16 MB cut its peak
 * RSS by ~100 MB with 100 sidecars at no measurable CPU cost. Costs one more Node start (~50 ms).
 */
function relaunchWithV8Flags(flags) {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const missing = flags.filter((f) => !given.some((g) => g.split('=')[0] === f.split('=')[0]));
  // NOTE: execve is missing before Node 23.11 and unavailable on Windows; the program then runs without the flags.
  if (missing.length === 0 || typeof process.execve !== 'function' || process.platform === 'win32') return;
  process.execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, process.argv[1], ...process.argv.slice(2)], process.env);
}

/** Runs a program's main module; `v8Flags` are start-up V8 flags it wants (see relaunchWithV8Flags). */
export async function launch(program, { v8Flags = [] } = {}) {
  checkNodeVersion(program);
  relaunchWithV8Flags(v8Flags);
  enableCompileCache();
  const main = `../dist/cli/${program}/main.js`;
  try {
    await import(main);
  } catch (err) {
    if (err?.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes(`dist/cli/${program}/main.js`)) {
      console.error(`${program} is not built yet: run \`npm run build\` in the repository first`);
      process.exit(1);
    }
    throw err;
  }
}
