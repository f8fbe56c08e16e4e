/**
 * A tiny ANSI colour helper. Colour is off when `TERM=dumb` (the spec's rule), when `NO_COLOR` is set,
 * or when the output is not a terminal.
 */

/** The colours the programs use. */
export const COLORS = { red: 31, green: 32, yellow: 33, blue: 34, bold: 1 } as const;
export type Color = keyof typeof COLORS;

/** Whether to colour output written to a stream, given the environment. */
export function colorEnabled(env: Readonly<Record<string, string | undefined>>, isTty: boolean): boolean {
  if (env['TERM'] === 'dumb') return false;
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  return isTty;
}

/** Wraps `text` in the colour's escape codes when `enabled`, else returns it unchanged. */
export function paint(text: string, color: Color, enabled: boolean): string {
  return enabled ? `\u001b[${COLORS[color]}m${text}\u001b[0m` : text;
}
