/**
 * What a SotW request's names do to a watch, worked out once per watch state and request and shared by every
 * stream that sends the same request in the same state.
 *
 * A SotW request repeats every name the proxy watches (an EDS request names every cluster: 1,000-2,000 names at
 * S=100-200). After a push that adds a cluster, every sidecar of a scope sends the same new list from the same
 * shared names table (shared-table.ts); comparing, diffing and applying it per stream were five passes over the
 * names per proxy (~12 % of a SotW full push's server CPU at S=200/N=400, profiled). A step is found again by
 * its state (the names table, the wildcard flag, the type) and the request's names bytes (request-wire.ts), a
 * memcmp instead of those passes.
 */
import type { DiscoveryRequest } from './wire.js';
import { WILDCARD_TYPES } from './protocol-common.js';
import { SharedTable } from './shared-table.js';

/** The watch state a step starts from. */
export interface NamesState {
  readonly typeUrl: string;
  readonly names: SharedTable;
  readonly wildcard: boolean;
}

/** What a request does to a watch in a given state. */
export interface NamesStep {
  /** The request leaves the names and the wildcard flag as they are (an ACK, perhaps reordered). */
  readonly same: boolean;
  /** The names and wildcard flag after the request. */
  readonly names: SharedTable;
  readonly wildcard: boolean;
  /** Names the request adds (each once, no `*`). */
  readonly added: readonly string[];
  /**
   * The request's resource_names bytes, one copy shared by every stream that sent them from this state (a watch
   * keeps them to recognise a repeated request: ~120 KB for an EDS request at S=200, per stream before); undefined
   * for a request not read from bytes.
   */
  readonly key: Buffer | undefined;
}

interface KnownStep {
  readonly typeUrl: string;
  readonly wildcard: boolean;
  readonly step: NamesStep;
}

/** Steps a names table remembers (the newest). */
const MAX_STEPS = 4;
const known = new WeakMap<SharedTable, KnownStep[]>();

/** The step of `req` from state `w` (see the file comment). */
export function namesStep(w: NamesState, req: DiscoveryRequest): NamesStep {
  const bytes = req.resourceNamesKey;
  if (!bytes) return computeStep(w, req.resourceNames, undefined);
  const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const list = known.get(w.names);
  const hit = list?.find((k) => k.typeUrl === w.typeUrl && k.wildcard === w.wildcard && k.step.key!.equals(key));
  if (hit) return hit.step;
  // NOTE: a copy, so that the key does not hold the whole request (or a larger chunk grpc-js read it from).
  const step = computeStep(w, req.resourceNames, Buffer.from(key));
  const entry: KnownStep = { typeUrl: w.typeUrl, wildcard: w.wildcard, step };
  if (!list) known.set(w.names, [entry]);
  else {
    if (list.length >= MAX_STEPS) list.shift();
    list.push(entry);
  }
  return step;
}

/**
 * The names runs (keys) of the steps known from state `w`: what other streams in the same state sent. A stream's
 * next request is often one of them (after a push, every sidecar of a scope asks for the same new names).
 */
export function knownRuns(w: NamesState): Buffer[] {
  const out: Buffer[] = [];
  for (const k of known.get(w.names) ?? []) if (k.typeUrl === w.typeUrl && k.wildcard === w.wildcard && k.step.key) out.push(k.step.key);
  return out;
}

function computeStep(w: NamesState, names: readonly string[], key: Buffer | undefined): NamesStep {
  const wildcard = names.includes('*') || (names.length === 0 && WILDCARD_TYPES.has(w.typeUrl));
  // NOTE: when the names stay, so does the flag (sameNames compares it).
  if (sameNames(w, names)) return { same: true, names: w.names, wildcard, added: [], key };
  const added = [...new Set(names.filter((n) => n !== '*' && !w.names.has(n)))];
  return { same: false, names: w.names.withNames(names.filter((n) => n !== '*')), wildcard, added, key };
}

/** Whether `names` (a request's resource names) would leave the watch's names and wildcard flag as they are. */
function sameNames(w: NamesState, names: readonly string[]): boolean {
  if (names.length === 0) return w.names.size === 0 && w.wildcard === WILDCARD_TYPES.has(w.typeUrl);
  let star = false;
  let n = 0;
  for (const name of names) {
    if (name === '*') star = true;
    else if (w.names.has(name)) n++;
    else return false;
  }
  // NOTE: a repeated name makes n exceed the set's size; the full path handles such requests.
  return n === w.names.size && star === w.wildcard;
}

const pruned = new WeakMap<SharedTable, { readonly names: SharedTable; readonly sent: SharedTable }>();

/** `sent` without the names `names` does not hold; the last result per `sent` table is kept (streams of a scope share both). */
export function sentWithin(sent: SharedTable, names: SharedTable): SharedTable {
  const last = pruned.get(sent);
  if (last && last.names === names) return last.sent;
  const next = sent.with([], [...sent.keys()].filter((n) => !names.has(n)));
  pruned.set(sent, { names, sent: next });
  return next;
}
