/** Columns aligned the way Go's tabwriter (minwidth 0, padding 5) aligns istioctl's tables. */

/** Formats `header` and `rows` as aligned columns; the last column is not padded. One line per row. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[], padding = 5): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]! + padding)))
        .join('')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}
