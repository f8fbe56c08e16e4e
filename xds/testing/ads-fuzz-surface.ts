/**
 * The fuzz surface of ADS: sequences of SotW or delta DiscoveryRequests (malformed nonces and versions,
 * huge resource_names lists, unknown and over-long type URLs, NACKs, hostile nodes, raw garbage bytes)
 * sent to a real in-process meshd (MeshDiscovery with its generators, on real gRPC at 127.0.0.1:0) that
 * serves one echo ServiceEntry and VirtualService. After each sequence a probe request (LDS, a type the
 * sequences never name) must be answered, or the stream must have been refused with a clear status; an
 * INTERNAL status or an error logged by meshd is a crash. Shaped as hack/fuzz's `FuzzSurface`.
 */
import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { ECHO_HOST } from '../generators/testing/model-fixtures.js';
import { encode, lookupType, TYPE_URL } from '../protos/index.js';
import { ADS_METHODS } from '../server/ads-service.js';
import { AdsClient } from './ads-client.js';
import { nodeObject } from './ads-stream.js';
import { ECHO_CLUSTER as CLUSTER, echoNode, startEchoMeshd } from './echo-meshd.js';
import { eventually } from './eventually.js';

/** A value taken from the stream's latest response of the message's type, or a literal. */
export type Echoed = { readonly echo: true } | string;

/** One request of a sequence: a DiscoveryRequest / DeltaDiscoveryRequest, or raw bytes. */
export type AdsFuzzMessage =
  | { readonly raw: Uint8Array }
  | {
      readonly typeUrl: string;
      readonly names: readonly string[];
      readonly unsubscribe: readonly string[];
      readonly versionInfo: Echoed;
      readonly nonce: Echoed;
      readonly nack?: { readonly code: number; readonly message: string };
      readonly initialVersions?: Readonly<Record<string, string>>;
    };

/** One input: a stream's protocol, the node of its first request (or none) and its requests. */
export interface AdsFuzzInput {
  readonly protocol: 'sotw' | 'delta';
  readonly node: Record<string, unknown> | undefined;
  readonly messages: readonly AdsFuzzMessage[];
}

const SOTW_REQUEST = 'envoy.service.discovery.v3.DiscoveryRequest';
const DELTA_REQUEST = 'envoy.service.discovery.v3.DeltaDiscoveryRequest';
const GRPC_NODE = echoNode('good');

/** The arbitrary of {@link AdsFuzzInput}. */
export function adsFuzzArbitrary(): fc.Arbitrary<AdsFuzzInput> {
  const str = fc.string({ unit: 'binary', maxLength: 30 });
  const known = [TYPE_URL.cluster, TYPE_URL.endpoint, TYPE_URL.route, TYPE_URL.secret, 'type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig'];
  const typeUrl = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...known) },
    { weight: 2, arbitrary: fc.constantFrom('', 'type.googleapis.com/', 'type.googleapis.com/attack.Unknown', 'x', `type.googleapis.com/${'y'.repeat(600)}`) },
    { weight: 1, arbitrary: str.map((s) => `type.googleapis.com/${s}`) },
  );
  const name = fc.oneof(fc.constantFrom(CLUSTER, ECHO_HOST, `${ECHO_HOST}:50051`, '*', '', 'outbound|0||', 'xdstp://a/b/c', 'kubernetes://x'), str);
  const names = fc.oneof(
    { weight: 12, arbitrary: fc.array(name, { maxLength: 6 }) },
    { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1000, max: 10_000 }), name).map(([n, x]) => Array.from({ length: n }, (_, i) => `${x}-${i}`)) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 5000 }).map((n) => Array<string>(n).fill(CLUSTER)) },
  );
  const echoed: fc.Arbitrary<Echoed> = fc.oneof(
    { weight: 4, arbitrary: fc.constant({ echo: true as const }) },
    { weight: 3, arbitrary: fc.constantFrom('', '0', '1', '-1', 'stale', ' ') },
    { weight: 2, arbitrary: str },
    { weight: 1, arbitrary: fc.constant('n'.repeat(70_000)) },
  );
  const request = fc.record(
    {
      typeUrl,
      names,
      unsubscribe: fc.array(name, { maxLength: 3 }),
      versionInfo: echoed,
      nonce: echoed,
      nack: fc.option(fc.record({ code: fc.integer({ min: -5, max: 20 }), message: fc.oneof(str, fc.constant('e'.repeat(50_000))) }), { freq: 4, nil: undefined }),
      initialVersions: fc.dictionary(name, str, { maxKeys: 4 }),
    },
    { requiredKeys: ['typeUrl', 'names', 'unsubscribe', 'versionInfo', 'nonce', 'nack'] },
  );
  const valid = encode(SOTW_REQUEST, { typeUrl: TYPE_URL.cluster, node: nodeObject(GRPC_NODE) });
  const raw = fc.oneof(
    fc.uint8Array({ maxLength: 64 }),
    fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([at, b]) => {
      const copy = Uint8Array.from(valid);
      copy[at % copy.length] = b;
      return copy;
    }),
  ).map((bytes) => ({ raw: bytes }));
  const metaValue = fc.oneof(str, fc.integer(), fc.boolean(), fc.constant(null), fc.dictionary(str, str, { maxKeys: 3 }), fc.array(str, { maxLength: 3 }));
  const metadata = fc.oneof(
    fc.constant({ GENERATOR: 'grpc', NAMESPACE: 'qs' }),
    fc.constant({}),
    fc.record({ GENERATOR: fc.oneof(fc.constantFrom('grpc', 'x'), str), NAMESPACE: fc.oneof(fc.constant('qs'), str), LABELS: fc.dictionary(str, metaValue, { maxKeys: 3 }) }, { requiredKeys: [] }),
    fc.dictionary(fc.constantFrom('CLUSTER_ID', 'ISTIO_VERSION', 'INTERCEPTION_MODE', 'PROXY_CONFIG', 'SERVICE_ACCOUNT', 'MESH_ID', 'NETWORK', 'LABELS', 'ANNOTATIONS', 'ENVOY_STATUS_PORT', 'DNS_CAPTURE'), metaValue),
  );
  const id = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(GRPC_NODE.id, 'sidecar~10.0.0.3~app.qs~qs.svc.cluster.local') },
    fc.constantFrom(GRPC_NODE.id, 'router~10.0.0.2~gw.mesh-system~mesh-system.svc.cluster.local', 'sidecar~10.0.0.3~app.qs~qs.svc.cluster.local', '', '~~~', 'sidecar~~~', 'ztunnel~1~2~3'),
    str,
    fc.tuple(fc.constantFrom('sidecar', 'router', 'x'), str, str, str).map((p) => p.join('~')),
  );
  const node = fc.oneof(
    { weight: 8, arbitrary: fc.record({ id, metadata }).map((n) => nodeObject(n)) },
    { weight: 1, arbitrary: fc.record({ id, cluster: str, locality: fc.record({ region: str, zone: str, subZone: str }) }).map((n) => nodeObject(n)) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  return fc.record({
    protocol: fc.constantFrom('sotw', 'delta'),
    node,
    messages: fc.array(fc.oneof({ weight: 6, arbitrary: request }, { weight: 1, arbitrary: raw }), { minLength: 1, maxLength: 6 }),
  });
}

/** The running surface; see the file comment. */
export interface AdsFuzzSurface {
  readonly name: string;
  readonly arbitrary: fc.Arbitrary<AdsFuzzInput>;
  /** Resolves with `accepted` (the probe was answered) or the refusal's reason; rejects with `property: ...`. */
  check(input: AdsFuzzInput): Promise<string>;
  /** The client whose one HTTP/2 connection the inputs' streams share (tests load it). */
  readonly client: grpc.Client;
  /** Counts of what the harness did besides checking (inputs re-checked alone), for the run's report. */
  counters(): Record<string, number>;
  /** A good proxyless client still gets the echo cluster, and no stream of the run is left open. */
  healthy(): Promise<void>;
  close(): Promise<void>;
}

const UNCLEAR = /Cannot read propert|is not a function|is not iterable|Maximum call stack|\[object Object\]|\bNaN\b|\bundefined\b/;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * `m` encoded, with the repeated string field `namesField` set to `names`: protobufjs encodes the rest and the
 * names are appended as that field's entries (a protobuf parser joins a repeated field's entries wherever they
 * stand), the same bytes a parser reads as `{ ...m, [namesField]: names }`.
 * NOTE: the inputs carry 1,500 names on average (lists of up to 10,000); protobufjs's writer encoding them was
 * 2.1 of the ~4.8 ms CPU per input. Names that are not well-formed UTF-16 go through protobufjs, which writes
 * them as it does.
 */
export function encodeRequest(type: ReturnType<typeof lookupType>, m: Record<string, unknown>, namesField: string, names: readonly string[]): Buffer {
  const field = type.fields[namesField];
  if (!field?.repeated || field.id >= 16) throw new Error(`${type.name}.${namesField} is not a repeated field with a one-byte tag`);
  if (names.length === 0 || names.some((n) => LONE_SURROGATE.test(n))) {
    const bytes = type.encode(type.fromObject(names.length === 0 ? m : { ...m, [namesField]: names })).finish();
    return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  const head = type.encode(type.fromObject(m)).finish();
  const tag = (field.id << 3) | 2;
  const lengths = names.map((n) => Buffer.byteLength(n, 'utf8'));
  let size = head.length;
  for (const n of lengths) size += 1 + (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : 4) + n;
  const out = Buffer.allocUnsafe(size);
  out.set(head, 0);
  let pos = head.length;
  for (let i = 0; i < names.length; i++) {
    out[pos++] = tag;
    let v = lengths[i]!;
    for (; v >= 0x80; v >>>= 7) out[pos++] = (v & 0x7f) | 0x80;
    out[pos++] = v;
    pos += out.write(names[i]!, pos, 'utf8');
  }
  return out;
}

/** A gRPC status that ends every stream of a connection: the server closed the HTTP/2 session (GOAWAY with an error). */
const SESSION_CLOSED = /Session closed with error code (\d+)/;

/** Counter names of {@link AdsFuzzSurface.counters}. */
export const RECHECKED = 'inputs re-checked alone (the shared HTTP/2 connection closed under them)';
export const ECHOED = "requests that echoed a response's nonce or version";
export const ECHO_WAITS_TIMED_OUT = 'echoes that found no response of their type within the wait (sent empty)';

/** The connection under a stream closed: no verdict on the input itself. */
class SessionClosedError extends Error {}

/** The reason label of a refused stream's status (quoted text and numbers replaced). */
function statusReason(s: grpc.StatusObject): string {
  return `${grpc.status[s.code]}: ${s.details.replace(/"(?:[^"\\]|\\.)*"/g, '"…"').replace(/\d+/g, 'N').slice(0, 70)}`;
}

/** Starts meshd's discovery on 127.0.0.1:0, serving the echo service; `boundMs` bounds each input (default 10 s). */
export async function startAdsFuzzSurface(opts: { readonly boundMs?: number } = {}): Promise<AdsFuzzSurface> {
  const boundMs = opts.boundMs ?? 10_000;
  const echoWaitMs = Math.min(250, boundMs / 4);
  const served = new Set<string>([TYPE_URL.cluster, TYPE_URL.endpoint, TYPE_URL.route, TYPE_URL.secret, TYPE_URL.listener, 'type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig']);
  const errors: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, cb) {
      for (const l of chunk.toString().split('\n')) if (l) errors.push(l.slice(0, 500));
      cb();
    },
  });
  const meshd = await startEchoMeshd({ logger: pino({ level: 'error' }, sink) });
  const { discovery, address } = meshd;
  const client = new grpc.Client(address, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });
  const sotwType = lookupType(SOTW_REQUEST);
  const deltaType = lookupType(DELTA_REQUEST);
  const responseType = lookupType('envoy.service.discovery.v3.DiscoveryResponse');
  const deltaResponseType = lookupType('envoy.service.discovery.v3.DeltaDiscoveryResponse');

  // NOTE: a stream whose probe was answered is half-closed (meshd then ends it OK), never cancelled. A cancel is
  // an RST_STREAM from the client, and the server's HTTP/2 layer (nghttp2's rapid-reset defence, CVE-2023-44487:
  // a burst of 1,000, then 33 a second) answers more than that on one connection with GOAWAY INTERNAL_ERROR:
  // every stream still open on the connection then ends "RST_STREAM with code 2 ... Session closed with error
  // code 2". Those were the 68 findings of the 2026-11-25 run: at ~90 inputs/s, ~20 of them cancelled a second on
  // one connection, a cluster of inputs (up to the 8 in flight) died with each GOAWAY; no input caused it.
  const checkOn = (on: grpc.Client, input: AdsFuzzInput): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      const delta = input.protocol === 'delta';
      const call = on.makeBidiStreamRequest(delta ? ADS_METHODS.delta : ADS_METHODS.stream, (b: Buffer) => b, (b: Buffer) => b);
      const latest = new Map<string, { nonce: string; version: string }>();
      let probeSent = false;
      let answered = false;
      let settled = false;
      const errorsBefore = errors.length;
      // NOTE: an echoed nonce or version is the latest response's of its type. All requests written at once (as before)
      // meant no response had come yet: every echo was '' and no input ever ACKed. So a request that echoes a type an
      // earlier request of the stream asked for (a type meshd serves) waits for that type's first response (or the
      // stream's end), at most 250 ms: a server that ignores the earlier request is no hang, the echo is then ''.
      const waiting = new Map<string, () => void>();
      const responseOf = (typeUrl: string): Promise<void> =>
        new Promise<void>((resolve) => {
          const wake = (): void => {
            clearTimeout(t);
            waiting.delete(typeUrl);
            resolve();
          };
          const t = setTimeout(() => {
            echoWaitsTimedOut++;
            wake();
          }, echoWaitMs);
          waiting.set(typeUrl, wake);
        });
      const finish = (err: Error | undefined, outcome?: string): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        for (const wake of [...waiting.values()]) wake();
        // NOTE: a no-op once the stream has ended (every outcome but a hang or an input the harness cannot encode).
        call.cancel();
        if (!err && errors.length > errorsBefore) err = new Error(`property: meshd logged an error: ${errors[errorsBefore]}`);
        if (err) reject(err);
        else resolve(outcome!);
      };
      const timer = setTimeout(() => finish(new Error(`hang: no answer to the probe and no end of stream within ${boundMs} ms`)), boundMs);
      call.on('error', () => undefined);
      call.on('data', (b: Buffer) => {
        const r = (delta ? deltaResponseType : responseType).decode(b) as unknown as { typeUrl: string; nonce: string; versionInfo?: string; systemVersionInfo?: string };
        latest.set(r.typeUrl, { nonce: r.nonce, version: r.versionInfo ?? r.systemVersionInfo ?? '' });
        waiting.get(r.typeUrl)?.();
        if (probeSent && !answered && r.typeUrl === TYPE_URL.listener) {
          answered = true;
          call.end();
        }
      });
      call.on('status', (s: grpc.StatusObject) => {
        for (const wake of [...waiting.values()]) wake();
        if (s.code === grpc.status.CANCELLED && settled) return;
        const session = SESSION_CLOSED.exec(s.details);
        if (session) return finish(new SessionClosedError(`the HTTP/2 connection closed under the stream (GOAWAY code ${session[1]}): ${s.details}`));
        if (s.code === grpc.status.INTERNAL) return finish(new Error(`property: stream ended INTERNAL: ${s.details}`));
        if (s.code === grpc.status.OK) return finish(undefined, answered ? 'accepted' : 'ended OK');
        if (s.details.trim().length < 6 || UNCLEAR.test(s.details)) return finish(new Error(`property: unclear refusal ${grpc.status[s.code]}: ${JSON.stringify(s.details.slice(0, 300))}`));
        finish(undefined, statusReason(s));
      });
      const asked = new Set<string>();
      let first = true;
      const send = (m: Record<string, unknown>, names: readonly string[] = []): void => {
        if (first && input.node) m['node'] = input.node;
        first = false;
        call.write(encodeRequest(delta ? deltaType : sotwType, m, delta ? 'resourceNamesSubscribe' : 'resourceNames', names));
      };
      const write = async (): Promise<void> => {
        for (const m of input.messages) {
          if (settled) return;
          if ('raw' in m) {
            first = false;
            call.write(Buffer.from(m.raw));
            continue;
          }
          const echoes = typeof m.nonce !== 'string' || (!delta && typeof m.versionInfo !== 'string');
          if (echoes && asked.has(m.typeUrl) && !latest.has(m.typeUrl) && served.has(m.typeUrl)) await responseOf(m.typeUrl);
          if (settled) return;
          asked.add(m.typeUrl);
          const last = latest.get(m.typeUrl);
          if (echoes && last) echoed++;
          const pick = (e: Echoed, k: 'nonce' | 'version'): string => (typeof e === 'string' ? e : (last?.[k] ?? ''));
          const nack = m.nack ? { errorDetail: { code: m.nack.code, message: m.nack.message } } : {};
          if (delta) {
            send({ typeUrl: m.typeUrl, resourceNamesUnsubscribe: m.unsubscribe, responseNonce: pick(m.nonce, 'nonce'), initialResourceVersions: m.initialVersions ?? {}, ...nack }, m.names);
          } else {
            send({ typeUrl: m.typeUrl, versionInfo: pick(m.versionInfo, 'version'), responseNonce: pick(m.nonce, 'nonce'), ...nack }, m.names);
          }
        }
        probeSent = true;
        send(delta ? { typeUrl: TYPE_URL.listener } : { typeUrl: TYPE_URL.listener, resourceNames: [] });
      };
      write().catch((e: unknown) => finish(new Error(`harness: cannot encode the input: ${(e as Error).message}`)));
    });

  let recheckedAlone = 0;
  let echoed = 0;
  let echoWaitsTimedOut = 0;
  const check = async (input: AdsFuzzInput): Promise<string> => {
    try {
      return await checkOn(client, input);
    } catch (e) {
      if (!(e instanceof SessionClosedError)) throw e;
    }
    // NOTE: the shared connection closed under this input's stream, so did every sibling's: the input is checked
    // again alone on a connection of its own, and only an input that closes that one too is a finding (an input
    // that breaks the whole connection), so a connection-level event is not counted against its bystanders.
    recheckedAlone++;
    const own = new grpc.Client(address, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });
    try {
      return await checkOn(own, input);
    } catch (e) {
      if (e instanceof SessionClosedError) throw new Error(`property: checked alone on its own connection, the input closed the connection: ${e.message}`);
      throw e;
    } finally {
      own.close();
    }
  };

  return {
    name: 'xds',
    arbitrary: adsFuzzArbitrary(),
    check,
    client,
    counters: () => ({ [RECHECKED]: recheckedAlone, [ECHOED]: echoed, [ECHO_WAITS_TIMED_OUT]: echoWaitsTimedOut }),
    healthy: async () => {
      const good = new AdsClient({ address, node: GRPC_NODE, autoAck: true, waitMs: boundMs });
      try {
        good.subscribe(TYPE_URL.cluster);
        const r = await good.nextResponse(TYPE_URL.cluster, 0);
        if (!r.resources.some((x) => x.name === CLUSTER)) throw new Error(`property: a good client got clusters [${r.resources.map((x) => x.name).join(', ')}], not ${CLUSTER}`);
      } finally {
        good.close();
      }
      await eventually('every stream of the run to be gone', () => discovery.ads.connections().length === 0, boundMs).catch(() => {
        throw new Error(`property: ${discovery.ads.connections().length} streams still open after their clients left`);
      });
      if (errors.length > 0) throw new Error(`property: meshd logged an error: ${errors[0]}`);
    },
    close: async () => {
      client.close();
      await meshd.close();
    },
  };
}
