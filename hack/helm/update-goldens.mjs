// Writes install/testdata/golden/<case>.yaml with real `helm template` output for every case of
// install/testdata/chart-cases.json, so `npm test` compares our renderer with helm without helm.
// Usage: node hack/helm/update-goldens.mjs [path-to-helm]   (default: the binary hack/helm/build.sh prints)
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const helm = process.argv[2] ?? execFileSync('bash', [`${root}hack/helm/build.sh`], { encoding: 'utf8' }).trim().split('\n').pop();
const cases = JSON.parse(readFileSync(`${root}install/testdata/chart-cases.json`, 'utf8'));
for (const c of cases) {
  const args = ['template', c.release, `${root}manifests/charts/${c.chart}`, '--namespace', c.namespace, '--kube-version', 'v1.34.0'];
  for (const v of c.values) args.push('--values', `${root}install/testdata/values/${v}`);
  const out = execFileSync(helm, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  writeFileSync(`${root}install/testdata/golden/${c.name}.yaml`, out);
  console.log(`${c.name}: ${out.length} bytes`);
}
