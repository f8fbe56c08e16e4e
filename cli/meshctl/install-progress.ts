/**
 * The progress of an install per component: how many of its objects are applied and ready, and what it is
 * waiting for. {@link ComponentProgress} folds the apply engine's events; {@link plainProgress} prints a
 * line when a component starts, waits on something new, or is done (for logs and pipes); the ink view
 * (install-progress-view.tsx) redraws the same state live on a terminal.
 */
import type { ApplyProgress, ManifestObject } from '../../install/index.js';
import type { TextSink } from '../framework/index.js';

/** One component's state. */
export interface ComponentState {
  readonly component: string;
  readonly total: number;
  applied: number;
  ready: number;
  /** What it waits for (`Deployment mesh-system/meshd: 0/1 replicas available`) or ''. */
  waiting: string;
  failed: string;
  pruned: number;
}

/** Folds apply events into per-component states, in the manifest's component order. */
export class ComponentProgress {
  readonly states: ComponentState[];
  readonly #by = new Map<string, ComponentState>();
  readonly #ready = new Set<string>();
  readonly #applied = new Set<string>();

  constructor(objects: readonly ManifestObject[]) {
    this.states = [];
    for (const o of objects) {
      let s = this.#by.get(o.component);
      if (!s) {
        s = { component: o.component, total: 0, applied: 0, ready: 0, waiting: '', failed: '', pruned: 0 };
        this.#by.set(o.component, s);
        this.states.push(s);
      }
      (s as { total: number }).total++;
    }
  }

  /** Applies one event; returns the component's state (undefined for a component the manifest lacks). */
  update(p: ApplyProgress): ComponentState | undefined {
    const s = this.#by.get(p.component);
    if (!s) return undefined;
    const key = `${p.component}/${p.object}`;
    if (p.phase === 'applied' && !this.#applied.has(key)) {
      this.#applied.add(key);
      s.applied++;
    } else if (p.phase === 'ready' && !this.#ready.has(key)) {
      this.#ready.add(key);
      s.ready++;
      if (s.waiting.startsWith(`${p.object}:`)) s.waiting = '';
    } else if (p.phase === 'waiting') s.waiting = `${p.object}: ${p.detail}`;
    else if (p.phase === 'failed') s.failed = `${p.object}: ${p.detail}`;
    else if (p.phase === 'pruned') s.pruned++;
    return s;
  }
}

/** A progress sink: events in, output out; `close` when the run ends. */
export interface ProgressView {
  update(p: ApplyProgress): void;
  close(): void;
}

/** Plain lines on `out`: a component's start, each new wait, its failure, and `✔ <component> installed`. */
export function plainProgress(objects: readonly ManifestObject[], out: TextSink): ProgressView {
  const progress = new ComponentProgress(objects);
  const started = new Set<string>();
  const done = new Set<string>();
  let lastWait = '';
  return {
    update(p) {
      const s = progress.update(p);
      if (p.phase === 'pruned') {
        out.write(`  Removed ${p.object}.\n`);
        return;
      }
      if (!s) return;
      if (!started.has(s.component)) {
        started.add(s.component);
        out.write(`- Processing resources for ${s.component}.\n`);
      }
      if (p.phase === 'waiting' && s.waiting !== lastWait) {
        lastWait = s.waiting;
        out.write(`  Waiting for ${s.waiting}\n`);
      }
      if (p.phase === 'failed') out.write(`✘ ${s.component} failed: ${s.failed}\n`);
      if (s.ready === s.total && !done.has(s.component)) {
        done.add(s.component);
        out.write(`✔ ${s.component} installed\n`);
      }
    },
    close() {},
  };
}
