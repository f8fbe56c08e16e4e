/**
 * The protoc-gen-validate rules (`(validate.rules)` field options) of the Envoy protos, checked on one
 * value. Rules are read from the loaded descriptors; `validate.ts` walks messages and calls these.
 */
import { isIP } from 'node:net';

/** One broken rule: where (a field path) and what. */
export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

/** The parsed `(validate.rules)` option of a field (snake_case keys as in validate.proto). */
export type Rules = Record<string, unknown>;

export function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return Number(v);
  if (v && typeof v === 'object' && 'toNumber' in v) return (v as { toNumber(): number }).toNumber();
  return Number(v);
}

/** A Duration or Timestamp `{ seconds, nanos }` as nanoseconds. */
export function nanosOf(v: unknown): bigint {
  const o = (v ?? {}) as { seconds?: unknown; nanos?: unknown };
  return BigInt(Math.trunc(num(o.seconds ?? 0))) * 1_000_000_000n + BigInt(Math.trunc(num(o.nanos ?? 0)));
}

function fmtDuration(n: bigint): string {
  const s = Number(n) / 1e9;
  return `${s}s`;
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : v === undefined ? [] : [v];
}

/** Checks numeric rules (`const`, `lt`, `lte`, `gt`, `gte`, `in`, `not_in`) on a number. */
export function checkNumber(r: Rules, value: number, path: string, out: ValidationIssue[]): void {
  const bad = (message: string): void => void out.push({ path, message });
  if (r['const'] !== undefined && value !== num(r['const'])) bad(`value must equal ${num(r['const'])}`);
  const gt = r['gt'] !== undefined ? num(r['gt']) : undefined;
  const gte = r['gte'] !== undefined ? num(r['gte']) : undefined;
  const lt = r['lt'] !== undefined ? num(r['lt']) : undefined;
  const lte = r['lte'] !== undefined ? num(r['lte']) : undefined;
  if (gt !== undefined && !(value > gt)) bad(`value must be greater than ${gt} (got ${value})`);
  if (gte !== undefined && !(value >= gte)) bad(`value must be at least ${gte} (got ${value})`);
  if (lt !== undefined && !(value < lt)) bad(`value must be less than ${lt} (got ${value})`);
  if (lte !== undefined && !(value <= lte)) bad(`value must be at most ${lte} (got ${value})`);
  const ins = list(r['in']).map(num);
  if (ins.length > 0 && !ins.includes(value)) bad(`value must be one of [${ins.join(', ')}] (got ${value})`);
  const notIns = list(r['not_in']).map(num);
  if (notIns.includes(value)) bad(`value must not be one of [${notIns.join(', ')}]`);
}

/** Checks duration rules on a Duration (`required` is checked by the caller). */
export function checkDuration(r: Rules, value: unknown, path: string, out: ValidationIssue[]): void {
  const n = nanosOf(value);
  const bad = (message: string): void => void out.push({ path, message });
  const cmp = (k: string): bigint | undefined => (r[k] !== undefined ? nanosOf(r[k]) : undefined);
  const [gt, gte, lt, lte, c] = [cmp('gt'), cmp('gte'), cmp('lt'), cmp('lte'), cmp('const')];
  if (c !== undefined && n !== c) bad(`duration must equal ${fmtDuration(c)}`);
  if (gt !== undefined && !(n > gt)) bad(`duration must be greater than ${fmtDuration(gt)} (got ${fmtDuration(n)})`);
  if (gte !== undefined && !(n >= gte)) bad(`duration must be at least ${fmtDuration(gte)} (got ${fmtDuration(n)})`);
  if (lt !== undefined && !(n < lt)) bad(`duration must be less than ${fmtDuration(lt)} (got ${fmtDuration(n)})`);
  if (lte !== undefined && !(n <= lte)) bad(`duration must be at most ${fmtDuration(lte)} (got ${fmtDuration(n)})`);
}

const HEADER_NAME_STRICT = /^:?[0-9a-zA-Z!#$%&'*+\-.^_|~`]+$/;
const HEADER_VALUE_STRICT = /^[^\u0000-\u0008\u000A-\u001F\u007F]*$/;
const HEADER_LOOSE = /^[^\u0000\u000A\u000D]*$/;
const HOSTNAME = /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$/;
const patternCache = new Map<string, RegExp | null>();

function compile(pattern: string): RegExp | null {
  let re = patternCache.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      re = null; // NOTE: an RE2 construct JavaScript lacks; the rule is skipped rather than guessed
    }
    patternCache.set(pattern, re);
  }
  return re;
}

/** Checks string rules on a string. */
export function checkString(r: Rules, value: string, path: string, out: ValidationIssue[]): void {
  if (r['ignore_empty'] === true && value === '') return;
  const bad = (message: string): void => void out.push({ path, message });
  const runes = [...value].length;
  const bytes = Buffer.byteLength(value);
  if (r['const'] !== undefined && value !== r['const']) bad(`value must equal "${String(r['const'])}"`);
  if (r['len'] !== undefined && runes !== num(r['len'])) bad(`value length must be ${num(r['len'])} characters`);
  if (r['min_len'] !== undefined && runes < num(r['min_len'])) bad(`value length must be at least ${num(r['min_len'])} characters (got ${runes})`);
  if (r['max_len'] !== undefined && runes > num(r['max_len'])) bad(`value length must be at most ${num(r['max_len'])} characters (got ${runes})`);
  if (r['min_bytes'] !== undefined && bytes < num(r['min_bytes'])) bad(`value must be at least ${num(r['min_bytes'])} bytes`);
  if (r['max_bytes'] !== undefined && bytes > num(r['max_bytes'])) bad(`value must be at most ${num(r['max_bytes'])} bytes (got ${bytes})`);
  if (typeof r['prefix'] === 'string' && !value.startsWith(r['prefix'])) bad(`value must start with "${r['prefix']}"`);
  if (typeof r['suffix'] === 'string' && !value.endsWith(r['suffix'])) bad(`value must end with "${r['suffix']}"`);
  if (typeof r['contains'] === 'string' && !value.includes(r['contains'])) bad(`value must contain "${r['contains']}"`);
  if (typeof r['not_contains'] === 'string' && value.includes(r['not_contains'])) bad(`value must not contain "${r['not_contains']}"`);
  const ins = list(r['in']).map(String);
  if (ins.length > 0 && !ins.includes(value)) bad(`value must be one of [${ins.join(', ')}] (got "${value}")`);
  if (list(r['not_in']).map(String).includes(value)) bad(`value must not be "${value}"`);
  if (typeof r['pattern'] === 'string') {
    const re = compile(r['pattern']);
    if (re && !re.test(value)) bad(`value does not match pattern ${r['pattern']}`);
  }
  const strict = r['strict'] !== false;
  if (r['well_known_regex'] === 'HTTP_HEADER_NAME' && !(strict ? HEADER_NAME_STRICT : HEADER_LOOSE).test(value)) {
    bad(`value "${value}" is not a valid HTTP header name`);
  }
  if (r['well_known_regex'] === 'HTTP_HEADER_VALUE' && !(strict ? HEADER_VALUE_STRICT : HEADER_LOOSE).test(value)) {
    bad('value is not a valid HTTP header value');
  }
  if (r['ip'] === true && isIP(value) === 0) bad(`value "${value}" must be an IP address`);
  if (r['ipv4'] === true && isIP(value) !== 4) bad(`value "${value}" must be an IPv4 address`);
  if (r['ipv6'] === true && isIP(value) !== 6) bad(`value "${value}" must be an IPv6 address`);
  if (r['hostname'] === true && !HOSTNAME.test(value)) bad(`value "${value}" must be a hostname`);
  if (r['address'] === true && isIP(value) === 0 && !HOSTNAME.test(value)) bad(`value "${value}" must be an IP address or hostname`);
  if (r['uri'] === true && !URL.canParse(value)) bad(`value "${value}" must be an absolute URI`);
}

/** Checks bytes rules on a byte array. */
export function checkBytes(r: Rules, value: Uint8Array, path: string, out: ValidationIssue[]): void {
  if (r['ignore_empty'] === true && value.length === 0) return;
  if (r['len'] !== undefined && value.length !== num(r['len'])) out.push({ path, message: `value must be ${num(r['len'])} bytes` });
  if (r['min_len'] !== undefined && value.length < num(r['min_len'])) out.push({ path, message: `value must be at least ${num(r['min_len'])} bytes` });
  if (r['max_len'] !== undefined && value.length > num(r['max_len'])) out.push({ path, message: `value must be at most ${num(r['max_len'])} bytes` });
}

/** Checks enum rules (`defined_only`, `const`, `in`, `not_in`) on an enum number. */
export function checkEnum(r: Rules, value: number, defined: Readonly<Record<number, string>>, path: string, out: ValidationIssue[]): void {
  if (r['defined_only'] === true && defined[value] === undefined) out.push({ path, message: `value ${value} is not a defined enum value` });
  checkNumber({ const: r['const'], in: r['in'], not_in: r['not_in'] }, value, path, out);
}

/** Checks repeated rules (`min_items`, `max_items`, `unique`) on a list; item rules are the caller's. */
export function checkRepeated(r: Rules, items: readonly unknown[], path: string, out: ValidationIssue[]): void {
  if (r['min_items'] !== undefined && items.length < num(r['min_items'])) {
    out.push({ path, message: `must have at least ${num(r['min_items'])} item(s) (got ${items.length})` });
  }
  if (r['max_items'] !== undefined && items.length > num(r['max_items'])) {
    out.push({ path, message: `must have at most ${num(r['max_items'])} item(s) (got ${items.length})` });
  }
  if (r['unique'] === true) {
    const seen = new Set<string>();
    for (const it of items) {
      const k = typeof it === 'object' ? JSON.stringify(it) : String(it);
      if (seen.has(k)) out.push({ path, message: `items must be unique (duplicate ${k})` });
      seen.add(k);
    }
  }
}
