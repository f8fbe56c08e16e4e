/**
 * Runs the rules: `iptables-restore --noflush` (v4, then v6 with --dual-stack) so each family's rules
 * apply atomically, and the TPROXY routing commands; optionally inside a network namespace (`nsenter`).
 * Dry-run returns the same commands without running anything. Cleaning reads the current tables and
 * removes exactly the mesh rules present, as one restore per family, so it can be run any number of times.
 */
import { spawnSync } from 'node:child_process';
import { jumpTarget, toRestoreInput, type Family, type Rule, type RuleSet, type Table } from './iptables-rules.js';

/** One command to run: argv and, for restores, the input. */
export interface PlannedCommand {
  readonly argv: readonly string[];
  readonly stdin?: string;
  /** Failure is expected and ignored (deleting a route that is not there). */
  readonly ignoreFailure?: boolean;
}

/** Options of the runner. */
export interface IptablesRunnerOptions {
  /** `--iptables-version`: '' picks the `iptables-*` alternatives; `legacy` or `nft` picks that backend. */
  readonly version: string;
  /** `--network-namespace`: a path (`/proc/<pid>/ns/net`) or a name under /var/run/netns. */
  readonly netns?: string;
}

/** A command failed or a precondition does not hold. */
export class IptablesRunError extends Error {
  override readonly name = 'IptablesRunError';
}

/** The binary names for a family and tool. */
export function binary(o: IptablesRunnerOptions, family: Family, tool: '' | '-save' | '-restore'): string {
  if (o.version !== '' && o.version !== 'legacy' && o.version !== 'nft') throw new IptablesRunError(`--iptables-version: "${o.version}" is not legacy or nft (or empty to detect)`);
  const base = family === 'v4' ? 'iptables' : 'ip6tables';
  return `${base}${o.version ? `-${o.version}` : ''}${tool}`;
}

/** The commands that apply `rules` (what --dry-run prints). */
export function applyCommands(rules: RuleSet, o: IptablesRunnerOptions): PlannedCommand[] {
  const out: PlannedCommand[] = [];
  for (const family of rules.ipv6 ? (['v4', 'v6'] as const) : (['v4'] as const)) {
    const input = toRestoreInput(rules[family]);
    if (input) out.push({ argv: [binary(o, family, '-restore'), '--noflush'], stdin: input });
    for (const r of rules.routes[family]) out.push({ argv: ['ip', ...r] });
  }
  return out;
}

/** Renders planned commands as the dry run prints them: the command line as run (in the namespace), then its input. */
export function renderCommands(cmds: readonly PlannedCommand[], o: IptablesRunnerOptions): string {
  return cmds.map((c) => `${inNetns(o, c.argv).join(' ')}\n${c.stdin ?? ''}`).join('');
}

function inNetns(o: IptablesRunnerOptions, argv: readonly string[]): string[] {
  if (!o.netns) return [...argv];
  const path = o.netns.includes('/') ? o.netns : `/var/run/netns/${o.netns}`;
  return ['nsenter', `--net=${path}`, ...argv];
}

function run(o: IptablesRunnerOptions, c: PlannedCommand): { ok: boolean; stdout: string; stderr: string } {
  const [cmd, ...args] = inNetns(o, c.argv);
  const r = spawnSync(cmd!, args, { input: c.stdin ?? '', encoding: 'utf8' });
  if (r.error) return { ok: false, stdout: '', stderr: r.error.message };
  return { ok: r.status === 0, stdout: r.stdout, stderr: r.stderr };
}

/** Runs commands in order; throws on the first failure (not ignored) naming the command and its error. */
export function runCommands(cmds: readonly PlannedCommand[], o: IptablesRunnerOptions): void {
  for (const c of cmds) {
    const r = run(o, c);
    if (!r.ok && !c.ignoreFailure) throw new IptablesRunError(`${c.argv.join(' ')} failed: ${r.stderr.trim() || 'no error output'}`);
  }
}

/** Mesh chains present per table, from `iptables-save` output. */
export function meshChainsIn(save: string): Map<Table, string[]> {
  const out = new Map<Table, string[]>();
  let table: Table | undefined;
  for (const line of save.split('\n')) {
    if (line.startsWith('*')) table = line.slice(1).trim() as Table;
    const m = /^:(MESH_\w+) /.exec(line);
    if (m && table) out.set(table, [...(out.get(table) ?? []), m[1]!]);
  }
  return out;
}

/** Rules in built-in chains that jump to a mesh chain, per table, as `iptables-save` prints them (`-A ...`). */
function jumpsToMesh(save: string): Map<Table, string[]> {
  const out = new Map<Table, string[]>();
  let table: Table | undefined;
  for (const line of save.split('\n')) {
    if (line.startsWith('*')) table = line.slice(1).trim() as Table;
    const m = /^-A ([A-Z]+) (.*-j MESH_\w+.*)$/.exec(line);
    if (m && table && !m[1]!.startsWith('MESH_')) out.set(table, [...(out.get(table) ?? []), `${m[1]} ${m[2]}`]);
  }
  return out;
}

/** The current tables of a family (`iptables-save`); undefined when the tool is missing or fails (no v6 support). */
export function saveTables(o: IptablesRunnerOptions, family: Family): string | undefined {
  const r = run(o, { argv: [binary(o, family, '-save')] });
  return r.ok ? r.stdout : undefined;
}

/** Refuses to apply over rules already present (the restore would double the jumps). */
export function assertNoMeshRules(o: IptablesRunnerOptions, families: readonly Family[]): void {
  for (const f of families) {
    const save = saveTables(o, f);
    if (save === undefined) throw new IptablesRunError(`${binary(o, f, '-save')} failed: cannot read the current ${f === 'v4' ? 'IPv4' : 'IPv6'} tables`);
    for (const [table, chains] of meshChainsIn(save)) {
      throw new IptablesRunError(`mesh rules are already present (${f === 'v4' ? 'IPv4' : 'IPv6'} table ${table}: ${chains.join(', ')}); run mesh-clean-iptables first`);
    }
  }
}

/**
 * The commands that remove the mesh rules present now: jumps into mesh chains, the other rules of
 * `rules` found in built-in chains (checked with `iptables -C`), then the mesh chains flushed and deleted.
 */
export function cleanCommands(rules: RuleSet, o: IptablesRunnerOptions): PlannedCommand[] {
  const out: PlannedCommand[] = [];
  for (const family of ['v4', 'v6'] as const) {
    const save = saveTables(o, family);
    if (save === undefined) continue;
    const chains = meshChainsIn(save);
    const jumps = jumpsToMesh(save);
    const builtIn = rules[family].filter((r: Rule) => !r.chain.startsWith('MESH_') && !jumpTarget(r)?.startsWith('MESH_'));
    const present = builtIn.filter((r) => run(o, { argv: [binary(o, family, ''), '-t', r.table, '-C', r.chain, ...r.args] }).ok);
    const tables = new Set<Table>([...chains.keys(), ...jumps.keys(), ...present.map((r) => r.table)]);
    const lines: string[] = [];
    for (const t of tables) {
      lines.push(`* ${t}`);
      for (const j of jumps.get(t) ?? []) lines.push(`-D ${j}`);
      for (const r of present.filter((x) => x.table === t)) lines.push([`-D ${r.chain}`, ...r.args.map((a) => (/^[\w.,:/!*-]+$/.test(a) ? a : `"${a}"`))].join(' '));
      for (const ch of chains.get(t) ?? []) lines.push(`-F ${ch}`);
      for (const ch of chains.get(t) ?? []) lines.push(`-X ${ch}`);
      lines.push('COMMIT');
    }
    if (lines.length > 0) out.push({ argv: [binary(o, family, '-restore'), '--noflush'], stdin: `${lines.join('\n')}\n` });
    for (const r of rules.routes[family]) out.push({ argv: ['ip', ...r.map((a) => (a === 'add' ? 'del' : a))], ignoreFailure: true });
  }
  return out;
}
