/** `meshctl experimental config list`: the configurable defaults, their values and where they come from. */
import { command, flag, parseFlagValue, formatFlagValue, type Command, type Flag } from '../framework/index.js';

/** The flags meshctl's configuration (MESHCTL_* and MESHCONFIG) can set, with their built-in defaults. */
export const CONFIGURABLE_FLAGS: readonly Flag[] = [
  flag.string('authority', '', ''),
  flag.string('cert-dir', '', ''),
  flag.bool('insecure', false, ''),
  flag.string('meshNamespace', 'mesh-system', ''),
  flag.bool('plaintext', false, ''),
  flag.string('xds-address', '', ''),
  flag.int('xds-port', 15012, ''),
];

/** The `config list` command. */
export function configListCommand(): Command {
  return command({
    name: 'list',
    short: 'List meshctl configurable defaults',
    run: (ctx) => {
      const rows = [['FLAG', 'VALUE', 'FROM']];
      for (const f of CONFIGURABLE_FLAGS) {
        const hit = (ctx.io.defaults ?? []).map((s) => s(f.name)).find((d) => d !== undefined);
        const value = hit ? formatFlagValue(f, parseFlagValue(f, hit.value, f.default, true)) : formatFlagValue(f, f.default);
        rows.push([f.name, value, hit ? hit.origin : 'default']);
      }
      const widths = [0, 1].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
      ctx.io.stdout.write(rows.map((r) => `${r[0]!.padEnd(widths[0]!)}   ${r[1]!.padEnd(widths[1]!)}   ${r[2]}`.trimEnd()).join('\n') + '\n');
    },
  });
}
