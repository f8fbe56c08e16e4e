/** Go's encoding/json Marshal/MarshalIndent and Unmarshal into `interface{}` (numbers become float64). */
import { GoFunction, GoInt, GoStruct, type GoValue, isMap, sortedKeys } from './go-value.js';

function quote(s: string, escapeHTML: boolean): string {
  let out = '"';
  for (const c of s) {
    const cp = c.codePointAt(0)!;
    if (c === '"') out += '\\"';
    else if (c === '\\') out += '\\\\';
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (c === '\b') out += '\\b';
    else if (c === '\f') out += '\\f';
    else if (cp < 0x20 || (escapeHTML && (c === '<' || c === '>' || c === '&')) || cp === 0x2028 || cp === 0x2029) {
      out += '\\u' + cp.toString(16).padStart(4, '0');
    } else out += c;
  }
  return out + '"';
}

function float(v: number): string {
  if (!Number.isFinite(v)) throw new Error(`json: unsupported value: ${v}`);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-6 || a >= 1e21)) return v.toExponential().replace(/e([+-])(\d)$/, 'e$10$2').replace('e+0', 'e+').replace('e-0', 'e-');
  return String(v);
}

/** Go's `json.Marshal` (`indent` non-empty: `MarshalIndent(v, "", indent)`). */
export function marshalJSON(v: GoValue, indent = '', escapeHTML = true, depth = 0): string {
  const nl = indent ? '\n' + indent.repeat(depth + 1) : '';
  const end = indent ? '\n' + indent.repeat(depth) : '';
  const colon = indent ? ': ' : ':';
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return quote(v, escapeHTML);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return float(v);
  if (v instanceof GoInt) return String(v.value);
  if (v instanceof GoFunction) throw new Error('json: unsupported type: func()');
  if (v instanceof GoStruct) return marshalJSON(v.fields as GoValue, indent, escapeHTML, depth);
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return '[' + v.map((x) => nl + marshalJSON(x, indent, escapeHTML, depth + 1)).join(',') + end + ']';
  }
  if (isMap(v)) {
    const keys = sortedKeys(v);
    if (keys.length === 0) return '{}';
    return '{' + keys.map((k) => nl + quote(k, escapeHTML) + colon + marshalJSON(v[k], indent, escapeHTML, depth + 1)).join(',') + end + '}';
  }
  throw new Error('json: unsupported value');
}

/** Go's `json.Unmarshal` into `interface{}`: objects to maps, numbers to float64. Throws Go-like errors. */
export function unmarshalJSON(text: string): GoValue {
  try {
    return JSON.parse(text) as GoValue;
  } catch {
    if (text.trim() === '') throw new Error('unexpected end of JSON input');
    throw new Error('invalid character in JSON input');
  }
}
