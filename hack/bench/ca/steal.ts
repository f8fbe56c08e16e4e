// The share of CPU time the hypervisor gave to other guests (the `steal` column of /proc/stat). On a
// shared VM this swings from 0 to over 30% within minutes, and every number of a phase drops with it.
import { readFileSync } from 'node:fs';

interface CpuTimes {
  readonly steal: number;
  readonly total: number;
}

function read(): CpuTimes | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    return { steal: fields[7] ?? 0, total: fields.reduce((a, b) => a + b, 0) };
  } catch {
    return undefined; // not Linux: no steal figure
  }
}

/** Starts measuring; the returned function gives the steal share (0..1) since, or undefined off Linux. */
export function measureSteal(): () => number | undefined {
  const start = read();
  return () => {
    const end = read();
    if (!start || !end || end.total === start.total) return undefined;
    return (end.steal - start.steal) / (end.total - start.total);
  };
}
