/**
 * Just enough of the DNS wire format (RFC 1035) for the agent's DNS proxy: read a query's id and first
 * question, and build an answer with A/AAAA records or an error code. Anything else is forwarded as bytes.
 */
import { isIP } from 'node:net';

/** Record types by number, for metric labels and answers. */
export const DNS_TYPES: Readonly<Record<number, string>> = { 1: 'A', 2: 'NS', 5: 'CNAME', 6: 'SOA', 12: 'PTR', 15: 'MX', 16: 'TXT', 28: 'AAAA', 33: 'SRV', 65: 'HTTPS' };

/** A parsed query: id, first question, and where the question section ends. */
export interface DnsQuestion {
  readonly id: number;
  /** Lower-case, without the trailing dot. */
  readonly name: string;
  readonly type: number;
  readonly qclass: number;
  readonly questionEnd: number;
}

/** A message that cannot be read. */
export class DnsFormatError extends Error {
  override readonly name = 'DnsFormatError';
}

/** Reads the header and the first question of a query. */
export function parseQuery(msg: Buffer): DnsQuestion {
  if (msg.length < 12) throw new DnsFormatError(`message of ${msg.length} bytes is shorter than a DNS header`);
  if (msg.readUInt16BE(4) < 1) throw new DnsFormatError('no question');
  const labels: string[] = [];
  let i = 12;
  for (;;) {
    if (i >= msg.length) throw new DnsFormatError('question name runs past the message');
    const len = msg[i]!;
    if (len === 0) break;
    if (len >= 0xc0) throw new DnsFormatError('compressed name in a question');
    labels.push(msg.subarray(i + 1, i + 1 + len).toString('latin1'));
    i += 1 + len;
  }
  i++;
  if (i + 4 > msg.length) throw new DnsFormatError('question type and class missing');
  return { id: msg.readUInt16BE(0), name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(i), qclass: msg.readUInt16BE(i + 2), questionEnd: i + 4 };
}

/** An answer to `query` (its question echoed) with `ips` as A or AAAA records, or an error `rcode`. */
export function buildAnswer(query: Buffer, q: DnsQuestion, ips: readonly string[], rcode = 0, ttl = 30): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(q.id, 0);
  // QR=1, opcode from the query, AA=1, RD copied, RA=1.
  const rd = query[2]! & 0x01;
  header[2] = 0x80 | (query[2]! & 0x78) | 0x04 | rd;
  header[3] = 0x80 | (rcode & 0x0f);
  header.writeUInt16BE(1, 4);
  const records = ips
    .filter((ip) => (q.type === 1 ? isIP(ip) === 4 : q.type === 28 ? isIP(ip) === 6 : false))
    .map((ip) => {
      const data = isIP(ip) === 4 ? Buffer.from(ip.split('.').map(Number)) : ipv6Bytes(ip);
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0); // pointer to the question name
      rr.writeUInt16BE(q.type, 2);
      rr.writeUInt16BE(1, 4);
      rr.writeUInt32BE(ttl, 6);
      rr.writeUInt16BE(data.length, 10);
      return Buffer.concat([rr, data]);
    });
  header.writeUInt16BE(records.length, 6);
  return Buffer.concat([header, query.subarray(12, q.questionEnd), ...records]);
}

function ipv6Bytes(ip: string): Buffer {
  const [head, tail] = ip.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g || '0', 16), i * 2));
  return out;
}
