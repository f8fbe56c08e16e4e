/**
 * A line diff of two texts (longest common subsequence), printed as the whole text with each line marked
 * `  ` (both), `- ` (only in a) or `+ ` (only in b), as the diff library istioctl uses prints it.
 * Returns '' when the texts are equal.
 */
export function lineDiff(a: string, b: string): string {
  if (a === b) return '';
  const x = a.split('\n');
  const y = b.split('\n');
  if (x[x.length - 1] === '') x.pop();
  if (y[y.length - 1] === '') y.pop();
  const n = x.length;
  const m = y.length;
  // NOTE: O(n*m) table; objects and profiles are a few hundred lines at most.
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    const row = lcs[i] as Uint32Array;
    const next = lcs[i + 1] as Uint32Array;
    for (let j = m - 1; j >= 0; j--) row[j] = x[i] === y[j] ? (next[j + 1] as number) + 1 : Math.max(next[j] as number, row[j + 1] as number);
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      out.push(`  ${x[i] as string}`);
      i++;
      j++;
    } else if (i < n && (j === m || (lcs[i + 1] as Uint32Array)[j]! >= (lcs[i] as Uint32Array)[j + 1]!)) {
      out.push(`- ${x[i] as string}`);
      i++;
    } else {
      out.push(`+ ${y[j] as string}`);
      j++;
    }
  }
  return `${out.join('\n')}\n`;
}
