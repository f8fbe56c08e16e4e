// The dry-run golden set: `mesh-iptables --dry-run` prints exactly the commands it would run (iptables-restore
// input, v4 then v6), one golden file per case under testdata/mesh-iptables/, covering every flag.
// MESH_UPDATE_GOLDEN=1 rewrites the files (review the diff).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildRules, iptablesConfigFrom, toRestoreInput, type IptablesSettings } from '../../agent/index.js';
import { bufferIo, runCli } from '../framework/index.js';
import { REPO_ROOT } from '../testing/program-process.js';
import { pilotAgentCommand } from './pilot-agent-command.js';

const DIR = join(REPO_ROOT, 'cli/pilot-agent/testdata/mesh-iptables');

function golden(name: string, got: string): void {
  const path = join(DIR, `${name}.golden`);
  if (process.env['MESH_UPDATE_GOLDEN'] === '1') writeFileSync(path, got);
  assert.ok(existsSync(path), `${path} is missing: run with MESH_UPDATE_GOLDEN=1 and review it`);
  assert.equal(got, readFileSync(path, 'utf8'), `${name}.golden`);
}

async function dryRun(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const io = bufferIo(env);
  const code = await runCli(pilotAgentCommand(), ['mesh-iptables', '--dry-run', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

describe('mesh-iptables --dry-run (golden)', () => {
  const cases: { name: string; args: string[]; env?: Record<string, string> }[] = [
    { name: 'defaults', args: [] },
    { name: 'capture-all', args: ['-i', '*', '-b', '*'] },
    { name: 'ports-and-cidrs', args: ['-p', '15101', '-z', '15106', '-e', '15108', '-i', '10.0.0.0/8,172.16.0.0/12', '-x', '10.96.0.10/32', '-b', '8080,9090', '-o', '3306,5432', '-q', '8443'] },
    { name: 'inbound-excludes', args: ['-i', '*', '-b', '*', '-d', '15020,15021,15090'] },
    { name: 'uid-gid', args: ['-i', '*', '-b', '*', '-u', '1337,1338', '-g', '1400'] },
    { name: 'interfaces', args: ['-i', '*', '-b', '*', '-c', 'eth1,eth2', '-k', 'veth0'] },
    { name: 'interfaces-with-cidr', args: ['-i', '10.0.0.0/8', '-k', 'veth0'] },
    { name: 'tproxy', args: ['-i', '*', '-b', '*', '-m', 'TPROXY', '-t', '1339', '-r', '134', '-c', 'eth1'] },
    { name: 'tproxy-ports', args: ['-i', '*', '-b', '80,443', '-m', 'TPROXY'] },
    { name: 'drop-invalid', args: ['-i', '*', '-b', '*', '--drop-invalid'] },
    { name: 'dual-stack', args: ['-i', '*', '-b', '*', '-x', '10.0.0.0/8,fd00::/8', '--dual-stack'] },
    { name: 'dual-stack-tproxy', args: ['-i', '*', '-b', '*', '-m', 'TPROXY', '--dual-stack'] },
    { name: 'capture-all-dns', args: ['-i', '*', '--redirect-dns', '--capture-all-dns'] },
    { name: 'trace-logging', args: ['-i', '*', '-b', '*', '--iptables-trace-logging'] },
    { name: 'iptables-version-legacy', args: ['-i', '*', '--iptables-version', 'legacy', '--dual-stack'] },
    { name: 'network-namespace', args: ['-i', '*', '--network-namespace', '/proc/1234/ns/net'] },
    { name: 'restore-format-skip-apply', args: ['-i', '*', '-f', '--skip-rule-apply', '--run-validation', '--iptables-probe-port', '15102', '--probe-timeout', '2s'] },
    { name: 'env-interception-and-mark', args: ['-i', '*', '-b', '*'], env: { INBOUND_INTERCEPTION_MODE: 'TPROXY', INBOUND_TPROXY_MARK: '1400' } },
    { name: 'env-loopback-and-owner-groups', args: ['-i', '*'], env: { MESH_OUTBOUND_IPV4_LOOPBACK_CIDR: '127.0.0.0/8', MESH_OUTBOUND_OWNER_GROUPS: 'java,1234' } },
    { name: 'env-owner-groups-exclude', args: ['-i', '*'], env: { MESH_OUTBOUND_OWNER_GROUPS_EXCLUDE: '999' } },
    { name: 'loopback-included', args: ['-i', '127.0.0.1/32,10.0.0.0/8'] },
  ];
  for (const c of cases) {
    it(`given ${c.name} (${c.args.join(' ') || 'no flags'}) should print the golden commands`, async () => {
      const r = await dryRun(c.args, c.env);
      assert.equal(r.code, 0, r.err);
      golden(c.name, r.out);
    });
  }

  it('given redirect-dns with nameservers from resolv.conf should capture DNS to those servers only (v4 and v6)', () => {
    const s: IptablesSettings = {
      envoyPort: '15001', inboundCapturePort: '15006', inboundTunnelPort: '15008', proxyUid: '', proxyGid: '', interceptionMode: '', tproxyMark: '1337',
      tproxyRouteTable: '133', inboundPorts: '', localExcludePorts: '', outboundPorts: '', outboundPortsExclude: '', serviceCidr: '*', serviceExcludeCidr: '',
      excludeInterfaces: '', virtInterfaces: '', redirectDns: true, captureAllDns: false, dropInvalid: false, dualStack: true, traceLogging: false,
      loopbackCidrV4: '127.0.0.1/32', ownerGroupsInclude: '*', ownerGroupsExclude: '', resolvConf: 'search svc.cluster.local\nnameserver 10.96.0.10\nnameserver fd00::a\noptions ndots:5\n',
    };
    const rules = buildRules(iptablesConfigFrom(s));
    golden('redirect-dns-resolv-conf', `${toRestoreInput(rules.v4)}${toRestoreInput(rules.v6)}`);
  });

  const refused: { args: string[]; env?: Record<string, string>; err: RegExp }[] = [
    { args: ['-p', '0'], err: /^Error: --envoy-port: "0" is not a port \(1-65535\)\n$/ },
    { args: ['-b', '80,http'], err: /^Error: --mesh-inbound-ports: "http" is not a port/ },
    { args: ['-i', '10.0.0.0/33'], err: /^Error: --mesh-service-cidr: "10\.0\.0\.0\/33" is not a CIDR\n$/ },
    { args: ['-x', '*'], err: /^Error: --mesh-service-exclude-cidr: "\*" is not a CIDR/ },
    { args: ['-m', 'NAT'], err: /^Error: --mesh-inbound-interception-mode: "NAT" is not REDIRECT or TPROXY\n$/ },
    { args: ['-u', 'envoy'], err: /^Error: --proxy-uid\/--proxy-gid: "envoy" is not a numeric id\n$/ },
    { args: ['--iptables-version', 'v9'], err: /^Error: --iptables-version: "v9" is not legacy or nft/ },
    { args: [], env: { MESH_OUTBOUND_IPV4_LOOPBACK_CIDR: 'localhost' }, err: /^Error: MESH_OUTBOUND_IPV4_LOOPBACK_CIDR: "localhost" is not a CIDR\n$/ },
    { args: ['--cni-mode'], err: /^not implemented yet: mesh-iptables --cni-mode/ },
  ];
  for (const c of refused) {
    it(`given ${[...c.args, ...Object.entries(c.env ?? {}).map(([k, v]) => `${k}=${v}`)].join(' ')} should refuse naming the setting`, async () => {
      const r = await dryRun(c.args, c.env);
      assert.equal(r.code, 1);
      assert.equal(r.out, '');
      assert.match(r.err, c.err);
    });
  }

  it('given mesh-clean-iptables --dry-run should say what it removes and touch nothing', async () => {
    const io = bufferIo();
    assert.equal(await runCli(pilotAgentCommand(), ['mesh-clean-iptables', '--dry-run'], io), 0);
    assert.match(io.out(), /removes the jumps into MESH_\* chains/);
  });
});
