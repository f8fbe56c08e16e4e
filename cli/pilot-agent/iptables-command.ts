/**
 * `pilot-agent mesh-iptables` and `mesh-clean-iptables`: flags and env-only settings
 * (INBOUND_INTERCEPTION_MODE, INBOUND_TPROXY_MARK, MESH_OUTBOUND_IPV4_LOOPBACK_CIDR,
 * MESH_OUTBOUND_OWNER_GROUPS[_EXCLUDE]) read once, rules built as data, then printed (--dry-run,
 * --restore-format) and applied with iptables-restore, or cleaned.
 */
import { readFileSync } from 'node:fs';
import {
  applyCommands, assertNoMeshRules, buildRules, cleanCommands, IptablesConfigError, iptablesConfigFrom, IptablesRunError, renderCommands, runCommands,
  validateRedirect, type IptablesConfig, type IptablesRunnerOptions, type IptablesSettings,
} from '../../agent/index.js';
import { EnvError, loadEnv, type Env } from '../../core/index.js';
import { CliError, notImplemented, type FlagValues, type RunContext } from '../framework/index.js';

/** Where the DNS servers to capture are read from. */
export const RESOLV_CONF = '/etc/resolv.conf';

function envOf(vars: Readonly<Record<string, string | undefined>>): Env {
  try {
    return loadEnv('pilot-agent', vars);
  } catch (e) {
    if (e instanceof EnvError) throw new CliError(e.message);
    throw e;
  }
}

const has = (flags: FlagValues, name: string): boolean => flags.changed(name);

/** The settings of either command; flags a command lacks take mesh-iptables' defaults. */
export function iptablesSettingsFrom(flags: FlagValues, env: Env, full: boolean, resolvConf: () => string): IptablesSettings {
  const s = (name: string, dflt: string): string => (full || has(flags, name) ? flags.string(name) : dflt);
  const b = (name: string): boolean => (full || has(flags, name) ? flags.bool(name) : false);
  const redirectDns = flags.bool('redirect-dns');
  return {
    envoyPort: s('envoy-port', '15001'),
    inboundCapturePort: s('inbound-capture-port', '15006'),
    inboundTunnelPort: s('inbound-tunnel-port', '15008'),
    proxyUid: flags.string('proxy-uid'),
    proxyGid: flags.string('proxy-gid'),
    interceptionMode: flags.string('mesh-inbound-interception-mode') || env.string('INBOUND_INTERCEPTION_MODE') || '',
    tproxyMark: (has(flags, 'mesh-inbound-tproxy-mark') ? flags.string('mesh-inbound-tproxy-mark') : env.string('INBOUND_TPROXY_MARK')) || '1337',
    tproxyRouteTable: s('mesh-inbound-tproxy-route-table', '133'),
    inboundPorts: s('mesh-inbound-ports', ''),
    localExcludePorts: s('mesh-local-exclude-ports', ''),
    outboundPorts: s('mesh-outbound-ports', ''),
    outboundPortsExclude: s('mesh-local-outbound-ports-exclude', ''),
    serviceCidr: s('mesh-service-cidr', ''),
    serviceExcludeCidr: s('mesh-service-exclude-cidr', ''),
    excludeInterfaces: s('mesh-exclude-interfaces', ''),
    virtInterfaces: s('orch-virt-interfaces', ''),
    redirectDns,
    captureAllDns: flags.bool('capture-all-dns'),
    dropInvalid: b('drop-invalid'),
    dualStack: b('dual-stack'),
    traceLogging: b('iptables-trace-logging'),
    loopbackCidrV4: env.string('MESH_OUTBOUND_IPV4_LOOPBACK_CIDR') ?? '127.0.0.1/32',
    ownerGroupsInclude: env.string('MESH_OUTBOUND_OWNER_GROUPS') ?? '*',
    ownerGroupsExclude: env.string('MESH_OUTBOUND_OWNER_GROUPS_EXCLUDE') ?? '',
    resolvConf: redirectDns && !flags.bool('capture-all-dns') ? resolvConf() : '',
  };
}

function configFrom(ctx: RunContext, full: boolean): IptablesConfig {
  const env = envOf(ctx.io.env);
  try {
    return iptablesConfigFrom(iptablesSettingsFrom(ctx.flags, env, full, () => readFileSync(RESOLV_CONF, 'utf8')));
  } catch (e) {
    if (e instanceof IptablesConfigError) throw new CliError(e.message);
    throw e;
  }
}

function runnerOptions(flags: FlagValues, full: boolean): IptablesRunnerOptions {
  const netns = full ? flags.string('network-namespace') : '';
  return { version: full ? flags.string('iptables-version') : '', ...(netns ? { netns } : {}) };
}

function wrap<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof IptablesRunError) throw new CliError(e.message);
    throw e;
  }
}

/** `mesh-iptables`. */
export async function runMeshIptables(ctx: RunContext): Promise<void> {
  const f = ctx.flags;
  if (f.bool('cni-mode')) notImplemented('mesh-iptables --cni-mode (the CNI plugin)');
  const config = configFrom(ctx, true);
  const rules = buildRules(config);
  const o = runnerOptions(f, true);
  const cmds = wrap(() => applyCommands(rules, o));
  if (f.bool('dry-run')) {
    ctx.io.stdout.write(renderCommands(cmds, o));
    return;
  }
  if (f.bool('restore-format')) ctx.io.stdout.write(renderCommands(cmds, o));
  if (f.bool('skip-rule-apply')) return;
  wrap(() => {
    assertNoMeshRules(o, rules.ipv6 ? ['v4', 'v6'] : ['v4']);
    runCommands(cmds, o);
  });
  if (f.bool('run-validation')) {
    if (o.netns) notImplemented('mesh-iptables --run-validation with --network-namespace');
    try {
      await validateRedirect(Number(config.proxyPort), f.number('iptables-probe-port'), f.number('probe-timeout'));
    } catch (e) {
      throw new CliError(`iptables validation failed: ${(e as Error).message}`);
    }
    ctx.io.stdout.write('iptables validation passed: outbound traffic reaches the proxy port\n');
  }
}

/** `mesh-clean-iptables`. */
export function runMeshCleanIptables(ctx: RunContext): void {
  const config = configFrom(ctx, false);
  // NOTE: v6 is cleaned whenever ip6tables can read its tables: the clean command has no --dual-stack.
  const rules = { ...buildRules({ ...config, dualStack: true }) };
  const o = runnerOptions(ctx.flags, false);
  if (ctx.flags.bool('dry-run')) {
    // NOTE: without reading the tables the exact deletions are unknown; print the chains and jumps it removes.
    ctx.io.stdout.write(`# mesh-clean-iptables removes the jumps into MESH_* chains, the mesh rules in built-in chains, then flushes and deletes the MESH_* chains\n`);
    return;
  }
  wrap(() => runCommands(cleanCommands(rules, o), o));
}
