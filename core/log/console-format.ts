import { DEFAULT_SCOPE } from './log-levels.js';

/** The record fields that have a place of their own in a console line. */
const PLACED = new Set(['time', 'level', 'scope', 'msg', 'caller', 'stack']);

/**
 * Formats one JSON log record the way Istio's console encoder does:
 * `<time>\t<level>\t<scope>\t<caller>\t<msg>\t<key=value ...>` then the stack on the next lines.
 * The scope is omitted for `default`, caller and fields when absent.
 */
export function formatConsoleLine(record: Readonly<Record<string, unknown>>): string {
  const parts = [String(record['time']), String(record['level'])];
  const scope = record['scope'];
  if (typeof scope === 'string' && scope !== DEFAULT_SCOPE) parts.push(scope);
  if (typeof record['caller'] === 'string') parts.push(record['caller']);
  parts.push(String(record['msg'] ?? ''));
  const fields = Object.entries(record)
    .filter(([key]) => !PLACED.has(key))
    .map(([key, value]) => `${key}=${formatValue(value)}`);
  if (fields.length > 0) parts.push(fields.join(' '));
  const stack = typeof record['stack'] === 'string' ? `\n${record['stack']}` : '';
  return `${parts.join('\t')}${stack}\n`;
}

function formatValue(value: unknown): string {
  // NOTE: errors (pino's serialized `err`) show their message only; the stack is for JSON output.
  if (isSerializedError(value)) return formatValue(value.message);
  if (typeof value === 'string') return /^[^\s"=]*$/.test(value) && value !== '' ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** Go-style UTC time with microseconds, `2026-11-22T00:00:00.000000Z`, from epoch milliseconds. */
export function formatLogTime(epochMs: number): string {
  const totalMicros = Math.round(epochMs * 1000);
  const seconds = Math.floor(totalMicros / 1_000_000);
  const micros = totalMicros - seconds * 1_000_000;
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}.${String(micros).padStart(6, '0')}Z`;
}

function isSerializedError(value: unknown): value is { message: string } {
  return typeof value === 'object' && value !== null && 'stack' in value && typeof (value as { message?: unknown }).message === 'string';
}
