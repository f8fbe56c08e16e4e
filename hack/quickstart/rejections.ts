/**
 * The quick start's view of edits meshd refused: polls meshd's `/debug/rejectedz` and renders each
 * rejection as one line for the live table ("the edit of virtual-service.yaml was rejected: <reason>;
 * the last good version is still served").
 */

/** One entry of `/debug/rejectedz` (controllers/ RejectedConfigEntry, as JSON). */
export interface RejectionEntry {
  readonly object: string;
  readonly location: string;
  readonly reason: string;
  readonly since: string;
  readonly served: string | null;
}

/** The latest answer of `/debug/rejectedz`, refreshed in the background. */
export interface Rejections {
  snapshot(): readonly RejectionEntry[];
  stop(): void;
}

/** Polls `http://<httpAddr>/debug/rejectedz` every `everyMs` (a failed poll keeps the last answer). */
export function watchRejections(httpAddr: string, everyMs = 500): Rejections {
  let latest: readonly RejectionEntry[] = [];
  let stopped = false;
  const poll = async (): Promise<void> => {
    try {
      const res = await fetch(`http://${httpAddr}/debug/rejectedz`);
      if (res.ok) latest = ((await res.json()) as { rejected?: RejectionEntry[] }).rejected ?? [];
    } catch {
      // NOTE: meshd is starting or stopping; keep the last answer.
    }
  };
  const timer = setInterval(() => void (stopped ? undefined : poll()), everyMs);
  timer.unref();
  void poll();
  return {
    snapshot: () => latest,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/** One line per rejection: which file's edit, why, and whether the last good version is still served. */
export function formatRejections(entries: readonly RejectionEntry[]): string[] {
  return entries.map((e) => {
    const file = e.location.replace(/ document \d+$/, '');
    const what = e.object === 'unknown' ? '' : ` (${e.object})`;
    const served = e.served !== null ? 'the last good version is still served' : 'nothing of it is served';
    return `rejected: the edit of ${file}${what}: ${e.reason}; ${served}`;
  });
}
