// CPU time of this process's threads by name (Linux: /proc/self/task/<tid>/comm and schedstat), so bench:ca
// can say where the server's CPU went: Node names its threads MainThread, WorkerThread (the CA's signer
// threads), V8Worker (V8's garbage collector and compiler helpers) and libuv-worker.
import { readdirSync, readFileSync } from 'node:fs';

/** Seconds on CPU per thread name, summed over threads of that name. */
export type ThreadCpu = Record<string, number>;

/** A snapshot of every thread's CPU time, keyed by tid; undefined off Linux. */
export function readThreadCpu(): Map<string, { name: string; seconds: number }> | undefined {
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return undefined;
  }
  const threads = new Map<string, { name: string; seconds: number }>();
  for (const tid of tids) {
    try {
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      const onCpuNs = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      threads.set(tid, { name, seconds: onCpuNs / 1e9 });
    } catch {
      // the thread ended between readdir and read
    }
  }
  return threads;
}

/** CPU seconds per thread name between two snapshots (threads that ended in between are not counted). */
export function threadCpuSince(start: ReturnType<typeof readThreadCpu>): ThreadCpu | undefined {
  const end = readThreadCpu();
  if (!start || !end) return undefined;
  const byName: ThreadCpu = {};
  for (const [tid, { name, seconds }] of end) byName[name] = (byName[name] ?? 0) + seconds - (start.get(tid)?.seconds ?? 0);
  return byName;
}
