/**
 * Edit scenarios and their markers. Each edit puts a unique marker into the config (a header-match
 * value, a new host, a subset name, an endpoint IP) that shows up verbatim in the encoded xDS resource
 * it changes, so a client learns that an edit arrived by finding the marker's bytes in a resource, not
 * by comparing version strings.
 */

/** The four edits whose convergence the benchmark measures. */
export const SCENARIOS = ['vs-edit', 'new-service', 'new-subset', 'endpoint'] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** Scenarios that make a full push (config changes); `endpoint` is an incremental (EDS) push. */
export const FULL_PUSH_SCENARIOS: ReadonlySet<Scenario> = new Set<Scenario>(['vs-edit', 'new-service', 'new-subset']);

/** What each edit changes and where its marker appears. */
export const SCENARIO_TEXT: Readonly<Record<Scenario, string>> = {
  'vs-edit': 'VirtualService edit (header-match value in RDS)',
  'new-service': 'new ServiceEntry (host in LDS/CDS)',
  'new-subset': 'new DestinationRule subset (subset name in CDS)',
  endpoint: 'WorkloadEntry address+weight (IP in EDS)',
};

/**
 * The xDS types (short names) in which each edit's marker is looked for: the types whose resources can
 * contain it only after the edit. NOTE: the VirtualService names the planned subsets before they exist
 * (so proxyless clients already ask for their clusters), so a subset name is in RDS from the start and
 * only its cluster in CDS marks the edit's arrival.
 */
export const SCENARIO_TYPES: Readonly<Record<Scenario, readonly ('LDS' | 'RDS' | 'CDS' | 'EDS')[]>> = {
  'vs-edit': ['RDS'],
  'new-service': ['LDS', 'CDS'],
  'new-subset': ['CDS'],
  endpoint: ['EDS'],
};

/** One planned edit. */
export interface PlannedEdit {
  readonly scenario: Scenario;
  readonly round: number;
  /** The text the edit writes into the config and that the resource bytes then contain. */
  readonly marker: string;
}

/** Every edit of a run, in the order they are made. */
export interface EditPlan {
  readonly runId: string;
  readonly rounds: number;
  readonly edits: readonly PlannedEdit[];
}

/**
 * The marker of one edit. Names are DNS-1123 labels (usable as host and subset names); endpoint
 * markers are IPs in 10.250.0.0/16 whose last octet has three digits, so no marker is a substring of
 * another generated address or of another round's marker.
 */
export function markerFor(scenario: Scenario, runId: string, round: number): string {
  if (!/^[a-z0-9]{1,12}$/.test(runId)) throw new RangeError(`runId: expected 1-12 lowercase letters or digits, got "${runId}"`);
  if (!Number.isInteger(round) || round < 0 || round > 255) throw new RangeError(`round: expected an integer 0-255, got ${round}`);
  switch (scenario) {
    case 'vs-edit':
      return `bmvs-${runId}-${round}`;
    case 'new-service':
      return `bmse-${runId}-${round}`;
    case 'new-subset':
      return `bmsub-${runId}-${round}`;
    case 'endpoint':
      return `10.250.${round}.${100 + (parseInt(runId.slice(-4), 36) % 150)}`;
  }
}

/** The plan: `rounds` rounds, each making the four edits in SCENARIOS order. */
export function planEdits(runId: string, rounds: number, scenarios: readonly Scenario[] = SCENARIOS): EditPlan {
  if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`rounds: expected a positive integer, got ${rounds}`);
  const edits: PlannedEdit[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const scenario of scenarios) edits.push({ scenario, round, marker: markerFor(scenario, runId, round) });
  }
  return { runId, rounds, edits };
}

/** A random run id (8 base-36 characters). */
export function randomRunId(): string {
  let s = '';
  for (let i = 0; i < 8; i++) s += Math.floor(Math.random() * 36).toString(36);
  return s;
}

/** A resource as the client sees it: its name and encoded bytes. */
export interface ResourceBytes {
  readonly name: string;
  readonly body: Uint8Array;
}

/**
 * The name of the first resource whose encoded bytes contain the marker, or undefined. Strings are
 * stored verbatim (UTF-8) in protobuf, so a marker written into the config is found byte for byte.
 */
export function findMarker(resources: readonly ResourceBytes[], marker: Uint8Array): string | undefined {
  if (marker.length === 0) throw new RangeError('findMarker: empty marker');
  for (const r of resources) {
    const b = Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength);
    if (b.indexOf(marker) >= 0) return r.name;
  }
  return undefined;
}

/**
 * {@link findMarker} for the resources of a decoded `message`, which `resourcesOf` gives (read only when the message
 * holds the marker) as views of it in the order they lie in it: the message is searched once and each occurrence
 * placed in the resource that holds it, rather than each resource searched in turn after a first search of the
 * whole message. Resources that turn out not to be views of `message` are searched one by one.
 */
export function findMarkerIn(message: Buffer, resourcesOf: () => readonly ResourceBytes[], marker: Uint8Array): string | undefined {
  if (marker.length === 0) throw new RangeError('findMarker: empty marker');
  // NOTE: Buffer#indexOf scans for the needle's first byte, then compares: searching from the marker's rarest byte
  // skips most of the message at memchr speed (a marker starting with "b" ran at ~0.3 GB/s over CDS responses).
  const k = rarestByteAt(marker);
  const tail = marker.subarray(k);
  let resources: readonly ResourceBytes[] | undefined;
  let i = 0;
  for (let hit = message.indexOf(tail, k); hit >= 0; hit = message.indexOf(tail, hit + 1)) {
    const at = hit - k;
    if (k > 0 && message.compare(marker, 0, k, at, hit) !== 0) continue;
    if (!resources) {
      resources = resourcesOf();
      if (!resources.every((r) => isViewOf(r.body, message))) return findMarker(resources, marker);
    }
    const start = message.byteOffset + at;
    const end = start + marker.length;
    while (i < resources.length && resources[i]!.body.byteOffset + resources[i]!.body.byteLength < end) i++;
    if (i === resources.length) return undefined;
    if (resources[i]!.body.byteOffset <= start) return resources[i]!.name;
  }
  return undefined;
}

/** Whether `b` lies inside `message`'s bytes. */
function isViewOf(b: Uint8Array, message: Buffer): boolean {
  return b.buffer === message.buffer && b.byteOffset >= message.byteOffset && b.byteOffset + b.byteLength <= message.byteOffset + message.byteLength;
}

/**
 * Characters of markers (lowercase letters, digits, "-", ".") from rare to common in encoded xDS resources: a guess
 * from their texts (host names, type URLs, filter names), which only makes a search faster or slower, never wrong.
 */
const RARE_FIRST = 'qzjxkwyvbfghmpd-9876543210ulcroinatse.';

/** rarestByteAt's answer per marker: a client checks every response of the watched types against the same one. */
const rarestOf = new WeakMap<Uint8Array, number>();

/** The position in `marker` of its rarest byte by {@link RARE_FIRST} (the first such; 0 for bytes it does not list). */
function rarestByteAt(marker: Uint8Array): number {
  let best = rarestOf.get(marker);
  if (best === undefined) rarestOf.set(marker, (best = rarestByteOf(marker)));
  return best;
}

function rarestByteOf(marker: Uint8Array): number {
  let best = 0;
  let bestRank = Infinity;
  for (let i = 0; i < marker.length; i++) {
    const rank = RARE_FIRST.indexOf(String.fromCharCode(marker[i]!));
    if (rank >= 0 && rank < bestRank) {
      best = i;
      bestRank = rank;
    }
  }
  return best;
}
