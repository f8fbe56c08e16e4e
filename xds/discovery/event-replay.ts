/**
 * Replays a recorded event log (`pilot-discovery discovery --record FILE`) through a fresh MeshDiscovery on
 * a virtual clock: the same options (from the log's header), the same inputs at the same times; the
 * recorded proxies connect as local streams (no network) and are served by the real generator registry and
 * SotW/delta handlers, with the recorded nonce seed. The result is every response, byte for byte, grouped
 * by the push (or the proxy's request) that caused it.
 *
 * The log (version 3) also holds the live run's timing decisions, and the replay follows them: a debounce
 * window closes where a `publish` record says it closed live (not when a virtual timer says), each
 * connection is handed the push a `push` record says it handled (merged as the push queue merged it,
 * reading the recorded snapshot) in its recorded turn among the connection's requests, and a proxy's own
 * request is answered from the snapshot it read live. So a busy live run (windows that closed late, pushes
 * merged while a proxy was being pushed, requests answered while a push waited) replays byte for byte.
 *
 * A version 2 log (inputs only) is refused: its pushes could only be re-decided, not replayed as they ran.
 */
import { pino } from 'pino';
import { Subject } from 'rxjs';
import {
  ConfigKeySet, createMetrics, ManualClock, PUSH_REASONS,
  type EventLog, type EventLogRecord, type ModelInput, type ProxyNode, type PushReason, type PushRequest, type PushSnapshot,
} from '../../core/index.js';
import { lookupType } from '../protos/index.js';
import type { LocalResponse, LocalStream } from '../server/ads-server.js';
import type { RecordedRequest } from '../server/stream-host.js';
import { MeshDiscovery, type RecordedDiscoveryOptions } from './mesh-discovery.js';

/** A replay failed: the log cannot be replayed (no header, a request on an unknown connection). */
export class ReplayError extends Error {
  override readonly name = 'ReplayError';
}

/** One response the replay wrote. */
export interface ReplayedResponse {
  /** Milliseconds since the start of the log. */
  readonly at: number;
  readonly connection: string;
  readonly nodeId: string;
  readonly typeUrl: string;
  readonly version: string;
  readonly nonce: string;
  /** Names of the resources it carries (delta: added or changed). */
  readonly resources: readonly string[];
  /** Delta only: names it removes. */
  readonly removed: readonly string[];
  /** The encoded DiscoveryResponse (or DeltaDiscoveryResponse), as it would be on the wire. */
  readonly message: Buffer;
}

/** A push (or the answer to a proxy's request) and what it sent. */
export interface ReplayedPush {
  readonly at: number;
  /** `push`: a debounced change; `request`: a proxy's own request (first request, new subscription). */
  readonly cause: 'push' | 'request';
  /** The token of the snapshot it read. */
  readonly token: number | undefined;
  readonly full: boolean;
  /** Why: push reasons and how many changes of each were merged. */
  readonly reasons: Readonly<Record<string, number>>;
  /** The configs that triggered it (empty for a full push of everything). */
  readonly configs: readonly string[];
  /** For `request`: the connection that asked. */
  readonly connection?: string;
  readonly responses: ReplayedResponse[];
}

/** What a replay produced. */
export interface ReplayResult {
  readonly pushes: readonly ReplayedPush[];
  /** Every response in the order written. */
  readonly responses: readonly ReplayedResponse[];
  /** Where the replay may differ from the recorded run (lost records, another snapshot read). */
  readonly warnings: readonly string[];
}

interface AnyMsg {
  readonly typeUrl?: string;
  readonly type_url?: string;
  readonly value: Uint8Array;
}

function resourceName(typeUrl: string, body: Uint8Array): string {
  const m = lookupType(typeUrl).decode(body) as unknown as { name?: string; clusterName?: string };
  return m.name || m.clusterName || '';
}

/** Decodes what a response says (version, nonce, resource names) for the report. */
function describeResponse(protocol: 'sotw' | 'delta', r: LocalResponse): Pick<ReplayedResponse, 'version' | 'nonce' | 'resources' | 'removed'> {
  if (protocol === 'sotw') {
    const m = lookupType('envoy.service.discovery.v3.DiscoveryResponse').decode(r.message) as unknown as { versionInfo: string; nonce: string; resources: AnyMsg[] };
    return { version: m.versionInfo, nonce: m.nonce, resources: m.resources.map((a) => resourceName(r.typeUrl, a.value)), removed: [] };
  }
  const m = lookupType('envoy.service.discovery.v3.DeltaDiscoveryResponse').decode(r.message) as unknown as {
    systemVersionInfo: string; nonce: string; resources: { name: string }[]; removedResources: string[];
  };
  return { version: m.systemVersionInfo, nonce: m.nonce, resources: m.resources.map((x) => x.name), removed: [...m.removedResources] };
}

/** Replays `log` (see the file comment). */
export async function replayEvents(log: EventLog): Promise<ReplayResult> {
  if (!log.header) throw new ReplayError('the log has no start record (recorded by an older meshd): its options and nonce seed are unknown');
  if (log.header.version < 3) {
    throw new ReplayError(`the log is of version ${log.header.version} (recorded by an older meshd): it lacks when debounce windows closed and what each proxy was pushed, so its pushes cannot be replayed as they ran; record it again`);
  }
  const meta = log.header.meta as unknown as RecordedDiscoveryOptions;
  if (!meta.model || !meta.generator || !meta.transport || typeof meta.nonceSeed !== 'string') {
    throw new ReplayError('the start record lacks model, generator, transport or nonceSeed');
  }
  const clock = new ManualClock(log.header.wallStart);
  const silent = pino({ level: 'silent' });
  const discovery = new MeshDiscovery({
    model: meta.model,
    generator: meta.generator,
    transport: meta.transport,
    metrics: createMetrics('pilot-discovery', { processMetrics: false }),
    loggers: { ads: silent, delta: silent, model: silent },
    clock,
    nonceSeed: meta.nonceSeed,
    ...(meta.controlPlaneId ? { controlPlaneId: meta.controlPlaneId } : {}),
  });
  const inputs = new Subject<readonly ModelInput[]>();
  const pushes: ReplayedPush[] = [];
  const responses: ReplayedResponse[] = [];
  const warnings: string[] = [];
  const groups = new Map<PushRequest, ReplayedPush>();
  const streams = new Map<string, { stream: LocalStream; node: ProxyNode; protocol: 'sotw' | 'delta' }>();
  let asking: { connection: string; token: number | undefined } | undefined;

  const groupOf = (push: PushRequest): ReplayedPush => {
    let group = groups.get(push);
    if (!group) {
      const own = push.forced === true && push.reasons.has('proxyrequest');
      group = {
        at: clock.now(),
        cause: own ? 'request' : 'push',
        token: push.snapshot?.token,
        full: push.full,
        reasons: Object.fromEntries(push.reasons),
        configs: push.configsUpdated.strings().sort(),
        ...(own && asking ? { connection: asking.connection } : {}),
        responses: [],
      };
      groups.set(push, group);
      pushes.push(group);
    }
    return group;
  };
  const onResponse = (r: LocalResponse): void => {
    const s = streams.get(r.connectionId);
    const group = groupOf(r.push);
    const protocol = s?.protocol ?? 'sotw';
    const out: ReplayedResponse = {
      at: clock.now(), connection: r.connectionId, nodeId: s?.node.id ?? '', typeUrl: r.typeUrl, message: r.message, ...describeResponse(protocol, r),
    };
    group.responses.push(out);
    responses.push(out);
  };

  const flushes = new Subject<void>();
  const snapshots = new Map<number, PushSnapshot>([[discovery.model.snapshot.token, discovery.model.snapshot]]);
  const published = new Map<number, PushRequest>();
  const sub = discovery.connect(
    inputs,
    (req) => {
      groupOf(req);
      if (req.snapshot) {
        snapshots.set(req.snapshot.token, req.snapshot);
        published.set(req.snapshot.token, req);
      }
    },
    { flushes },
  );
  const streamOf = (rec: EventLogRecord & { readonly connection: string }, what: string): (typeof streams extends Map<string, infer S> ? S : never) => {
    const s = streams.get(rec.connection);
    if (!s) throw new ReplayError(`record ${rec.seq}: ${what} on connection ${rec.connection}, which never connected in this log`);
    return s;
  };

  try {
    for (const rec of log.records) {
      // NOTE: no debounce timer runs (the windows close at `publish` records), so the clock only stamps.
      if (rec.at > clock.now()) clock.advanceSync(rec.at - clock.now());
      if (rec.type === 'inputs') inputs.next(rec.inputs);
      else if (rec.type === 'publish') {
        if (discovery.model.snapshot.token < rec.token) flushes.next();
        if (discovery.model.snapshot.token !== rec.token) {
          warnings.push(`record ${rec.seq}: live, snapshot ${rec.token} was published here; the replay is at snapshot ${discovery.model.snapshot.token}`);
        }
      } else if (rec.type === 'connect') {
        const stream = await discovery.ads.openLocal(rec.node, rec.protocol, onResponse, rec.connection);
        streams.set(rec.connection, { stream, node: rec.node, protocol: rec.protocol });
      } else if (rec.type === 'request') {
        const s = streamOf(rec, 'a request');
        const latest = discovery.model.snapshot.token;
        const answerFrom = rec.token !== undefined ? snapshots.get(rec.token) : undefined;
        if (rec.token !== undefined && rec.token !== latest && !answerFrom) {
          warnings.push(`record ${rec.seq} (${rec.connection}): the request was answered from snapshot ${rec.token} live, from ${latest} in the replay`);
        }
        asking = { connection: rec.connection, token: rec.token };
        await s.stream.request(rec.request as unknown as RecordedRequest, answerFrom);
        asking = undefined;
      } else if (rec.type === 'push') {
        const s = streamOf(rec, 'a push');
        const push = recordedPush(rec, published, snapshots);
        if (!push) {
          warnings.push(`record ${rec.seq} (${rec.connection}): a push of snapshot ${String(rec.token)}, which the replay never published; skipped`);
          continue;
        }
        await s.stream.push(push);
      } else if (rec.type === 'disconnect') {
        streams.get(rec.connection)?.stream.close();
        streams.delete(rec.connection);
      } else {
        warnings.push(`record ${rec.seq}: the recording lost ${rec.dropped} records here (its buffer was full); what follows may differ from the live run`);
      }
    }
  } finally {
    inputs.complete();
    flushes.complete();
    sub.unsubscribe();
    discovery.ads.close();
  }
  return { pushes, responses, warnings };
}

/**
 * The request a `push` record says a connection handled: the published push of its snapshot itself when
 * the queue did not merge it (so the report groups it with that push), else the merged request rebuilt.
 * Undefined when the replay never published that snapshot.
 */
function recordedPush(
  rec: Extract<EventLogRecord, { type: 'push' }>, published: ReadonlyMap<number, PushRequest>, snapshots: ReadonlyMap<number, PushSnapshot>,
): PushRequest | undefined {
  const snapshot = rec.token === undefined ? undefined : snapshots.get(rec.token);
  if (rec.token !== undefined && !snapshot) return undefined;
  const base = rec.token === undefined ? undefined : published.get(rec.token);
  const reasons = new Map<PushReason, number>();
  for (const [r, n] of Object.entries(rec.reasons)) {
    if ((PUSH_REASONS as readonly string[]).includes(r)) reasons.set(r as PushReason, n);
  }
  const configs = new ConfigKeySet(rec.configs);
  if (
    base && base.full === rec.full && (base.forced ?? false) === (rec.forced ?? false) &&
    base.reasons.size === reasons.size && [...reasons].every(([r, n]) => base.reasons.get(r) === n) &&
    base.configsUpdated.strings().join('\n') === configs.strings().join('\n')
  ) {
    return base;
  }
  return {
    full: rec.full,
    reasons,
    configsUpdated: configs,
    start: base?.start ?? 0,
    ...(rec.forced ? { forced: true } : {}),
    ...(snapshot ? { snapshot } : {}),
  };
}

const SHORT: Readonly<Record<string, string>> = {
  'type.googleapis.com/envoy.config.cluster.v3.Cluster': 'CDS',
  'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment': 'EDS',
  'type.googleapis.com/envoy.config.listener.v3.Listener': 'LDS',
  'type.googleapis.com/envoy.config.route.v3.RouteConfiguration': 'RDS',
};

/** The human report of a replay: per push, why, and which proxy got which resources. */
export function formatReplay(result: ReplayResult): string {
  const lines: string[] = [];
  for (const p of result.pushes) {
    const why = Object.entries(p.reasons).map(([r, n]) => `${r}=${n}`).join(' ');
    const head = p.cause === 'request' ? `request from ${p.connection ?? '?'}` : `push ${p.full ? 'full' : 'eds'}`;
    lines.push(`+${p.at.toFixed(1)}ms ${head} (snapshot ${p.token ?? '-'}; reasons ${why}; configs ${p.configs.length > 0 ? p.configs.join(', ') : p.full ? '(all)' : '-'})`);
    if (p.responses.length === 0) lines.push('  (no proxy needed it)');
    for (const r of p.responses) {
      const removed = r.removed.length > 0 ? ` removed [${r.removed.join(', ')}]` : '';
      lines.push(`  ${r.nodeId} ${SHORT[r.typeUrl] ?? r.typeUrl} version ${r.version} nonce ${r.nonce}: [${r.resources.join(', ')}]${removed} (${r.message.length} bytes)`);
    }
  }
  for (const w of result.warnings) lines.push(`warning: ${w}`);
  lines.push(`${result.pushes.length} pushes, ${result.responses.length} responses`);
  return lines.join('\n') + '\n';
}
