/** Shapes and helpers the meshd e2e tests share: a VirtualService as the API server returns it, failure logs. */
import type { StatusCondition } from '../../reconcilers/index.js';

/** A mesh.io VirtualService as read from or written to the API server (the fields the tests touch). */
export interface VirtualServiceObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; generation?: number; resourceVersion?: string };
  spec: Record<string, unknown>;
  status?: { conditions?: StatusCondition[]; observedGeneration?: number | string };
}

/** Runs `run`; a failure carries the tail of every named meshd's output. */
export async function withMeshdLogs<T>(processes: readonly { readonly name: string; readonly meshd: { readonly log: string } }[], run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const logs = processes.map((p) => `--- ${p.name} (tail) ---\n${p.meshd.log.slice(-3000)}`).join('\n');
    throw new Error(`${(err as Error).message}\n${logs}`);
  }
}
