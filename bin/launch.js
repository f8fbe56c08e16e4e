// Shared by the launchers beside this file: checks the Node.js version first (package.json's engines), then
// runs dist/cli/<program>/main.js, or says to build first.
import { readFileSync } from 'node:fs';

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

export async function launch(program) {
  checkNodeVersion(program);
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
