// Real iptables in real network namespaces (root, Debian's iptables and iproute2; .ci/run installs them).
// Each case makes a "pod" namespace and a "peer" namespace joined by a veth pair (10.200.0.2 <-> 10.200.0.1),
// applies `pilot-agent mesh-iptables` in the pod, and sends real TCP/UDP traffic: listeners stand in for the
// proxy (15001 outbound, 15006 inbound), the agent's DNS proxy (15053), the app (8080, 9090) and the peer
// (80, 53). Then `mesh-clean-iptables` must give back the tables as they were. All traffic stays inside
// the namespaces the test creates.
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../testing/program-process.js';

const run = promisify(execFile);
const PROBE = join(REPO_ROOT, 'dist/agent/testing/netns-probe.js');
const AGENT = join(REPO_ROOT, 'bin/pilot-agent');
const which = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/** Why these tests cannot run here, or undefined when they can. */
function missing(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root';
  for (const cmd of ['iptables-restore', 'iptables-save', 'ip', 'nsenter', 'setpriv']) if (!which(cmd)) return `no ${cmd} (apt-get install iptables iproute2 util-linux)`;
  // NOTE: root in a container without CAP_SYS_ADMIN cannot make network namespaces: probe once.
  const probe = `mesh-probe-${process.pid}`;
  const made = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  if (made.status !== 0) return `cannot create a network namespace: ${(made.stderr || made.error?.message || '').trim()}`;
  spawnSync('ip', ['netns', 'del', probe]);
  return undefined;
}

let seq = 0;

interface Pod {
  readonly pod: string;
  readonly peer: string;
  readonly servers: ChildProcess[];
}

async function sh(...argv: string[]): Promise<string> {
  const { stdout } = await run(argv[0]!, argv.slice(1));
  return stdout;
}

async function serve(ns: string, ...specs: string[]): Promise<ChildProcess> {
  const child = spawn('ip', ['netns', 'exec', ns, process.execPath, PROBE, 'serve', ...specs], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((res, rej) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.once('data', () => res());
    child.once('exit', (code) => rej(new Error(`servers ${specs.join(' ')} exited ${code}: ${err}`)));
  });
  return child;
}

async function makePod(): Promise<Pod> {
  const n = `${process.pid}-${++seq}`;
  const pod = `mesh-pod-${n}`;
  const peer = `mesh-peer-${n}`;
  await sh('ip', 'netns', 'add', pod);
  await sh('ip', 'netns', 'add', peer);
  await sh('ip', '-n', pod, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', peer);
  for (const [ns, ip] of [[pod, '10.200.0.2/24'], [peer, '10.200.0.1/24']] as const) {
    await sh('ip', '-n', ns, 'addr', 'add', ip, 'dev', 'eth0');
    await sh('ip', '-n', ns, 'link', 'set', 'eth0', 'up');
    await sh('ip', '-n', ns, 'link', 'set', 'lo', 'up');
  }
  await sh('ip', '-n', pod, 'route', 'add', 'default', 'via', '10.200.0.1');
  const servers = [
    await serve(pod, '15001:proxy-outbound', '15006:proxy-inbound', '8080:app-8080', '9090:app-9090', '15053:dns-agent:udp'),
    await serve(peer, '80:peer-80', '53:peer-dns:udp'),
  ];
  return { pod, peer, servers };
}

async function removePod(p: Pod): Promise<void> {
  for (const s of p.servers) {
    s.kill('SIGKILL');
    if (s.exitCode === null && s.signalCode === null) await new Promise((res) => s.once('exit', res));
  }
  await run('ip', ['netns', 'del', p.pod]).catch(() => undefined);
  await run('ip', ['netns', 'del', p.peer]).catch(() => undefined);
}

/** One connection (or datagram) from `ns`, as root or as the proxy's uid 1337; resolves to the answer. */
async function dial(ns: string, host: string, port: number, o: { uid?: number; udp?: boolean } = {}): Promise<string> {
  const as = o.uid !== undefined ? ['setpriv', `--reuid=${o.uid}`, `--regid=${o.uid}`, '--clear-groups'] : [];
  return (await sh('ip', 'netns', 'exec', ns, ...as, process.execPath, PROBE, 'dial', host, String(port), ...(o.udp ? ['udp'] : []))).trim();
}

/**
 * `iptables-save` of the pod without comments and counters, and without tables that hold nothing (only
 * built-in chains with ACCEPT policies and no rules): with the nft backend such a table appears once used
 * and stays after its rules are gone, and it filters nothing.
 */
async function tables(ns: string): Promise<string> {
  const text = (await sh('ip', 'netns', 'exec', ns, 'iptables-save'))
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .map((l) => l.replace(/ \[\d+:\d+\]$/, ''))
    .join('\n');
  return text
    .split(/^(?=\*)/m)
    .filter((t) => !t.split('\n').every((l) => l === '' || l === 'COMMIT' || l.startsWith('*') || /^:[A-Z]+ ACCEPT$/.test(l)))
    .join('');
}

async function agent(ns: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = spawnSync('ip', ['netns', 'exec', ns, AGENT, ...args], { encoding: 'utf8', env: { ...process.env, PATH: `${join(process.execPath, '..')}:${process.env['PATH']}` } });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

// Skipped as a whole, the reason printed, without root, iptables, iproute2, nsenter and setpriv or network namespaces:
// the rules and the traffic must be real (.ci/run installs the packages; it runs as root).
describe('mesh-iptables in a network namespace (real iptables, real traffic)', function () {
  this.timeout(60_000);
  let p: Pod | undefined;
  before(function () {
    const why = missing();
    if (why) {
      process.stderr.write(`  skipped: mesh-iptables namespace tests need root, iptables, iproute2, nsenter and setpriv: ${why}\n`);
      this.skip(); // not root, no iptables/iproute2/nsenter/setpriv, or no network namespaces here (reason printed above)
    }
  });
  afterEach(async () => {
    if (p) await removePod(p);
    p = undefined;
  });

  const cases: { name: string; flags: string[]; dials: { from: 'pod' | 'peer'; host: string; port: number; uid?: number; udp?: boolean; want: string }[] }[] = [
    {
      name: 'all outbound and all inbound captured (-i * -b *)',
      flags: ['-i', '*', '-b', '*'],
      dials: [
        { from: 'pod', host: '10.200.0.1', port: 80, want: 'proxy-outbound' },
        { from: 'pod', host: '10.200.0.1', port: 80, uid: 1337, want: 'peer-80' },
        { from: 'peer', host: '10.200.0.2', port: 8080, want: 'proxy-inbound' },
        { from: 'pod', host: '127.0.0.1', port: 8080, want: 'app-8080' },
      ],
    },
    {
      name: 'an excluded CIDR (-x) and one inbound port (-b 8080)',
      flags: ['-i', '*', '-x', '10.200.0.1/32', '-b', '8080'],
      dials: [
        { from: 'pod', host: '10.200.0.1', port: 80, want: 'peer-80' },
        { from: 'peer', host: '10.200.0.2', port: 8080, want: 'proxy-inbound' },
        { from: 'peer', host: '10.200.0.2', port: 9090, want: 'app-9090' },
      ],
    },
    {
      name: 'an excluded outbound port (-o 80) and an excluded inbound port (-d 9090)',
      flags: ['-i', '*', '-o', '80', '-b', '*', '-d', '9090'],
      dials: [
        { from: 'pod', host: '10.200.0.1', port: 80, want: 'peer-80' },
        { from: 'pod', host: '10.200.0.1', port: 8080, want: 'proxy-outbound' },
        { from: 'peer', host: '10.200.0.2', port: 9090, want: 'app-9090' },
        { from: 'peer', host: '10.200.0.2', port: 8080, want: 'proxy-inbound' },
      ],
    },
    {
      name: 'DNS capture (--redirect-dns --capture-all-dns)',
      flags: ['-i', '*', '--redirect-dns', '--capture-all-dns'],
      dials: [
        { from: 'pod', host: '10.200.0.1', port: 53, udp: true, want: 'dns-agent' },
        { from: 'pod', host: '10.200.0.1', port: 53, udp: true, uid: 1337, want: 'peer-dns' },
        { from: 'pod', host: '10.200.0.1', port: 80, want: 'proxy-outbound' },
      ],
    },
  ];
  for (const c of cases) {
    // Skipped, the reason printed, without root, iptables, iproute2, nsenter, setpriv or network namespaces.
    it(`given ${c.name} should redirect as configured, and clean should restore the tables`, async () => {
      p = await makePod();
      const before = await tables(p.pod);
      // Before the rules, the first dial reaches its real destination.
      const first = c.dials[0]!;
      assert.notEqual(await dial(first.from === 'pod' ? p.pod : p.peer, first.host, first.port, first), first.want.startsWith('peer') ? '' : first.want, 'before the rules');
      const applied = await agent(p.pod, 'mesh-iptables', ...c.flags);
      assert.equal(applied.code, 0, applied.err);
      assert.match(await tables(p.pod), /^:MESH_OUTPUT -$/m);
      for (const d of c.dials) assert.equal(await dial(d.from === 'pod' ? p.pod : p.peer, d.host, d.port, d), d.want, `${d.from}${d.uid ? ` as uid ${d.uid}` : ''} -> ${d.host}:${d.port}${d.udp ? '/udp' : ''}`);
      const again = await agent(p.pod, 'mesh-iptables', ...c.flags);
      assert.equal(again.code, 1);
      assert.match(again.err, /^Error: mesh rules are already present \(IPv4 table \w+: MESH_/);
      const cleanFlags = c.flags.filter((f) => f === '--redirect-dns' || f === '--capture-all-dns');
      for (let i = 0; i < 2; i++) {
        const cleaned = await agent(p.pod, 'mesh-clean-iptables', ...cleanFlags);
        assert.equal(cleaned.code, 0, cleaned.err);
        assert.equal(await tables(p.pod), before, `tables after clean #${i + 1}`);
      }
    });
  }

  // Skipped, the reason printed, without root, iptables, iproute2, nsenter, setpriv or network namespaces.
  it('given --network-namespace should apply the rules in that namespace, not in the caller\'s', async () => {
    p = await makePod();
    const r = spawnSync(AGENT, ['mesh-iptables', '-i', '*', '--network-namespace', p.pod], { encoding: 'utf8', env: { ...process.env, PATH: `${join(process.execPath, '..')}:${process.env['PATH']}` } });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(await dial(p.pod, '10.200.0.1', 80), 'proxy-outbound');
    assert.doesNotMatch(spawnSync('iptables-save', { encoding: 'utf8' }).stdout, /MESH_/);
  });
});
