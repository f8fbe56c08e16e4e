import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Paths of the control-plane binaries the harness runs. */
export interface TestBinaries {
  readonly kubeApiserver: string;
  readonly etcd: string;
}

/** Thrown when `hack/k8s/build.sh` fails or does not produce the binaries. */
export class TestBinariesError extends Error {
  override readonly name = 'TestBinariesError';
}

/**
 * Returns the kube-apiserver and etcd binaries, building them with `hack/k8s/build.sh` when they are not in
 * the cache yet (the script is idempotent and answers at once when they are). The script's progress goes
 * to this process's stderr; its last stdout line is the folder holding the binaries.
 */
export async function ensureTestBinaries(repoRoot: string): Promise<TestBinaries> {
  const script = join(repoRoot, 'hack', 'k8s', 'build.sh');
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn('bash', [script], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
    });
    child.once('error', (err) => reject(new TestBinariesError(`could not run ${script}: ${err.message}`)));
    child.once('exit', (code) => {
      if (code === 0) resolve(out);
      else reject(new TestBinariesError(`${script} exited with code ${String(code)}: see its output above`));
    });
  });
  const dir = stdout.trim().split('\n').pop() ?? '';
  const binaries = { kubeApiserver: join(dir, 'kube-apiserver'), etcd: join(dir, 'etcd') };
  for (const path of Object.values(binaries)) {
    if (!existsSync(path)) throw new TestBinariesError(`${script} finished but ${path} does not exist`);
  }
  return binaries;
}
