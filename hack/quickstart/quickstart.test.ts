import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../xds/testing/free-port.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** Shares per version in the last table the quick start printed. */
function lastShares(output: string): { total: number; shares: Map<string, number> } | undefined {
  const tables = output.split(/^echo\.quickstart\.svc\.cluster\.local:50051: /m).slice(1);
  const last = tables.at(-1);
  if (last === undefined) return undefined;
  const total = Number(/^(\d+) calls/.exec(last)?.[1] ?? '0');
  const shares = new Map<string, number>();
  for (const m of last.matchAll(/^(v\d+)\s+(\d+)\s+([\d.]+)%/gm)) shares.set(m[1]!, Number(m[3]) / 100);
  return { total, shares };
}

async function until<T>(what: string, deadlineMs: number, probe: () => T | undefined, log: () => string): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; output so far:\n${log()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('quick start (npm start)', function () {
  this.timeout(150_000);
  let dir: string;
  let child: ChildProcess | undefined;
  let output = '';

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-quickstart-test-'));
    cpSync(join(REPO, 'examples', 'quickstart'), dir, { recursive: true });
    // NOTE: the example's backends listen on 127.0.0.11/12:50051; a random 127.x.y.0/24 in the copy lets two
    // test runs share a machine.
    const net = `127.${1 + Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
    const entries = join(dir, 'workload-entries.yaml');
    writeFileSync(entries, readFileSync(entries, 'utf8').replaceAll('address: 127.0.0.', `address: ${net}.`));
  });
  after(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child!.once('exit', r));
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('given the example config should split 80/20, follow an edit of the VirtualService, show a rejected edit while serving the last good one, and stop cleanly', async () => {
    const ports = { grpc: await freePort(), http: await freePort(), monitoring: await freePort(), ctrlz: await freePort() };
    child = spawn(
      process.execPath,
      [
        join(REPO, 'dist', 'hack', 'quickstart', 'main.js'),
        '--config-dir', dir, '--duration', '140',
        '--grpc-port', String(ports.grpc), '--http-port', String(ports.http),
        '--monitoring-port', String(ports.monitoring), '--ctrlz-port', String(ports.ctrlz),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
    const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));

    // 80/20 over a 2 s window of about 200 calls: allow a generous statistical margin.
    await until('an 80/20 split', 40_000, () => {
      const t = lastShares(output);
      const v1 = t?.shares.get('v1') ?? 0;
      return t && t.total >= 100 && v1 > 0.68 && v1 < 0.92 ? t : undefined;
    }, () => output);

    const vsPath = join(dir, 'virtual-service.yaml');
    const edited = readFileSync(vsPath, 'utf8').replace('weight: 80', 'weight: 0').replace('weight: 20', 'weight: 100');
    assert.notEqual(edited, readFileSync(vsPath, 'utf8'));
    writeFileSync(vsPath, edited);
    await until('all traffic on v2 after the edit', 30_000, () => {
      const t = lastShares(output);
      return t && t.total >= 50 && t.shares.get('v2') === 1 ? t : undefined;
    }, () => output);

    // An edit meshd rejects (all weights 0): the table says so, and the traffic stays on the last good version.
    writeFileSync(vsPath, edited.replace('weight: 100', 'weight: 0'));
    const rejectedLine = /^rejected: the edit of virtual-service\.yaml \(VirtualService quickstart\/echo\): spec\.http\[0\]\.route: total destination weight = 0; the last good version is still served$/m;
    await until('the rejected edit in the table', 30_000, () => (rejectedLine.test(output.split(/^echo\.quickstart\.svc\.cluster\.local:50051: /m).at(-1) ?? '') ? true : undefined), () => output);
    const after = output.length;
    await until('a full table printed after the rejection', 30_000, () => {
      const t = lastShares(output.slice(after));
      return t && t.total >= 50 ? t : undefined;
    }, () => output);
    assert.equal(lastShares(output)?.shares.get('v2'), 1, 'the last good version (all on v2) is still served');

    child.kill('SIGTERM');
    assert.equal(await exited, 0, output);
  });
});
