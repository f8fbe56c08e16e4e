/**
 * The agent's DNS proxy (DNS_PROXY_ADDR, default localhost:15053, UDP and TCP): names in the mesh's name
 * table are answered at once (A/AAAA from the table; other types get an empty answer); every other query
 * is forwarded to the upstream servers of /etc/resolv.conf, one after another or all at once with
 * DNS_FORWARD_PARALLEL, and their answer relayed as is (SERVFAIL when none answers). Metrics:
 * `dns_requests_total`, `dns_upstream_requests_total`, `dns_upstream_failures_total` (by record type) and
 * `dns_upstream_request_duration_seconds`.
 */
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import { systemClock, type Clock, type Metrics } from '../../core/index.js';
import { buildAnswer, DNS_TYPES, DnsFormatError, parseQuery } from './dns-message.js';

/** Host name -> addresses, as meshd's name table (NDS) gives them. */
export type NameTable = ReadonlyMap<string, readonly string[]>;

/** Options of the DNS proxy. */
export interface DnsProxyOptions {
  readonly host: string;
  readonly port: number;
  /** Upstream servers (`ip` or `ip:port`). */
  readonly upstreams: readonly string[];
  readonly parallel: boolean;
  /** Per-upstream timeout (default 2 s). */
  readonly timeoutMs?: number;
  readonly metrics: Metrics;
  readonly logger: Logger;
  readonly clock?: Clock;
}

const RCODE_SERVFAIL = 2;

/** A running DNS proxy. */
export class DnsProxy {
  readonly #o: DnsProxyOptions;
  readonly #udp: Socket;
  readonly #tcp: Server;
  #table: NameTable = new Map();

  private constructor(o: DnsProxyOptions) {
    this.#o = o;
    this.#udp = createSocket(isIP(o.host) === 6 ? 'udp6' : 'udp4');
    this.#udp.on('message', (msg, from) => {
      void this.#answer(msg).then((out) => out && this.#udp.send(out, from.port, from.address));
    });
    this.#tcp = createServer((socket) => {
      let buf = Buffer.alloc(0);
      socket.on('data', (d: Buffer) => {
        buf = Buffer.concat([buf, d]);
        while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          const msg = buf.subarray(2, 2 + buf.readUInt16BE(0));
          buf = buf.subarray(2 + msg.length);
          void this.#answer(Buffer.from(msg)).then((out) => {
            if (!out || socket.destroyed) return;
            const len = Buffer.alloc(2);
            len.writeUInt16BE(out.length);
            socket.write(Buffer.concat([len, out]));
          });
        }
      });
      socket.on('error', () => undefined);
    });
  }

  /** Listens on UDP and TCP at `host:port` (port 0: one free port for both is not guaranteed; use a fixed one). */
  static async start(o: DnsProxyOptions): Promise<DnsProxy> {
    const p = new DnsProxy(o);
    await new Promise<void>((res, rej) => {
      p.#udp.once('error', rej);
      p.#udp.bind(o.port, o.host, () => res());
    });
    await new Promise<void>((res, rej) => {
      p.#tcp.once('error', rej);
      p.#tcp.listen(o.port, o.host, () => res());
    });
    return p;
  }

  /** Replaces the name table (from NDS). */
  setNameTable(table: NameTable): void {
    this.#table = table;
  }

  async #answer(msg: Buffer): Promise<Buffer | undefined> {
    let q;
    try {
      q = parseQuery(msg);
    } catch (e) {
      if (e instanceof DnsFormatError) this.#o.logger.debug({ err: e.message }, 'malformed DNS query dropped');
      return undefined;
    }
    const type = DNS_TYPES[q.type] ?? String(q.type);
    this.#o.metrics.counter('dns_requests_total').inc({ request_type: type });
    const known = this.#table.get(q.name);
    if (known) return buildAnswer(msg, q, known);
    this.#o.metrics.counter('dns_upstream_requests_total').inc({ request_type: type });
    // NOTE: performance.now() measures for the metric only.
    const started = performance.now();
    try {
      const answer = await this.#forward(msg);
      this.#o.metrics.histogram('dns_upstream_request_duration_seconds').observe((performance.now() - started) / 1000);
      return answer;
    } catch (e) {
      this.#o.metrics.counter('dns_upstream_failures_total').inc({ request_type: type });
      this.#o.logger.debug({ name: q.name, err: (e as Error).message }, 'upstream DNS failed');
      return buildAnswer(msg, q, [], RCODE_SERVFAIL);
    }
  }

  async #forward(msg: Buffer): Promise<Buffer> {
    const ups = this.#o.upstreams;
    if (ups.length === 0) throw new Error('no upstream DNS servers');
    if (this.#o.parallel) return Promise.any(ups.map((u) => this.#ask(u, msg)));
    let last: unknown;
    for (const u of ups) {
      try {
        return await this.#ask(u, msg);
      } catch (e) {
        last = e;
      }
    }
    throw last as Error;
  }

  #ask(upstream: string, msg: Buffer): Promise<Buffer> {
    const m = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(upstream);
    const host = isIP(upstream) ? upstream : m![1]!;
    const port = isIP(upstream) ? 53 : Number(m![2] ?? 53);
    return new Promise((resolve, reject) => {
      const s = createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
      const timeoutMs = this.#o.timeoutMs ?? 2000;
      const cancel = (this.#o.clock ?? systemClock).setTimer(() => done(new Error(`no answer from ${host}:${port} within ${timeoutMs}ms`)), timeoutMs);
      const done = (err?: Error, out?: Buffer): void => {
        cancel();
        s.close();
        if (err) reject(err);
        else resolve(out!);
      };
      s.on('message', (out) => {
        if (out.length >= 2 && out.readUInt16BE(0) === msg.readUInt16BE(0)) done(undefined, out);
      });
      s.on('error', (e) => done(e));
      s.send(msg, port, host);
    });
  }

  /** Stops both listeners. */
  async close(): Promise<void> {
    this.#udp.close();
    await new Promise<void>((res) => this.#tcp.close(() => res()));
  }
}
