/**
 * sigs.k8s.io/yaml's Marshal (JSON, then go.yaml.in/yaml/v2's block style) and Unmarshal (YAML to
 * JSON to `interface{}`, so numbers are float64), as Helm's `toYaml`/`fromYaml` use them.
 */
import { parse as parseYaml } from 'yaml';
import { marshalJSON } from './go-json.js';
import type { GoValue } from './go-value.js';

type J = null | boolean | number | string | J[] | { [k: string]: J } | { $int: string };

// Plain scalars yaml.v2 must quote because they would read back as another type or are not plain.
const RESOLVES = /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|[-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?0x[0-9a-fA-F_]+|[-+]?0b[01_]+|[-+]?0[0-7_]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|<<|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?|\d{4}-\d\d?-\d\d?(?:(?:[Tt]|[ \t]+)\d\d?:\d\d:\d\d(?:\.\d*)?(?:[ \t]*(?:Z|[-+]\d\d?(?::\d\d)?))?)?)$/;

function needsQuote(s: string): boolean {
  if (/^[\s]|[\s]$/.test(s)) return true;
  if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(s) && !/^[-?:][^\s]/.test(s)) return true;
  if (/^[-?:]$/.test(s)) return true;
  if (/: |:$| #|[\t]/.test(s)) return true;
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufeff]/.test(s)) return true;
  return false;
}

function scalar(s: string, indent: string): string {
  if (s.includes('\n') && !/[\u0000-\u0008\u000b-\u001f]/.test(s) && !/ \n|\n $/.test(s) && !/^\s/.test(s)) {
    const chomp = s.endsWith('\n') ? (s.endsWith('\n\n') ? '+' : '') : '-';
    const body = (chomp === '' ? s.slice(0, -1) : chomp === '+' ? s.slice(0, -1) : s).split('\n');
    return '|' + chomp + body.map((l) => '\n' + (l === '' ? '' : indent + '  ' + l)).join('');
  }
  const control = /[\u0000-\u001f\u007f-\u009f\ufeff]/.test(s);
  if (s !== '' && !RESOLVES.test(s) && !control) {
    if (!needsQuote(s)) return s;
    return "'" + s.replace(/'/g, "''") + "'";
  }
  return JSON.stringify(s).replace(/\\u([0-9a-f]{4})/g, (_m, h: string) => `\\u${h.toUpperCase()}`);
}

function num(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const a = Math.abs(n);
  if (a !== 0 && (a < 1e-4 || a >= 1e21)) return n.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  return String(n);
}

function emit(v: J, indent: string, out: string[], inList: boolean): void {
  if (Array.isArray(v)) {
    if (v.length === 0) { out.push('[]\n'); return; }
    if (!inList) out.push('\n');
    v.forEach((x, i) => {
      out.push((i === 0 && inList ? '' : indent) + '- ');
      if ((Array.isArray(x) && x.length > 0) || (x !== null && typeof x === 'object' && !Array.isArray(x) && Object.keys(x).length > 0)) emit(x, indent + '  ', out, true);
      else emit(x, indent + '  ', out, false);
    });
    return;
  }
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.length === 0) { out.push('{}\n'); return; }
    if (!inList) out.push('\n');
    keys.forEach((k, i) => {
      const x = (v as Record<string, J>)[k];
      out.push((i === 0 && inList ? '' : indent) + scalar(k, indent) + ':');
      if (Array.isArray(x) && x.length > 0) emit(x, indent, out, false);
      else if (x !== null && typeof x === 'object' && !Array.isArray(x) && Object.keys(x).length > 0) emit(x, indent + '  ', out, false);
      else { out.push(' '); emit(x, indent + '  ', out, false); }
    });
    return;
  }
  if (v === null) out.push('null\n');
  else if (typeof v === 'boolean') out.push(String(v) + '\n');
  else if (typeof v === 'number') out.push(num(v) + '\n');
  else out.push(scalar(v, indent.slice(0, -2)) + '\n');
}

/** sigs.k8s.io/yaml.Marshal of a value (ends with a newline; `{}` for an empty map, `null` for nil). */
export function marshalYAML(v: GoValue): string {
  const j = JSON.parse(marshalJSON(v, '', false)) as J;
  const out: string[] = [];
  emit(j, '', out, true);
  const s = out.join('');
  return s.startsWith('\n') ? s.slice(1) : s;
}

/** sigs.k8s.io/yaml.Unmarshal into `interface{}`: maps, slices, float64 numbers. */
export function unmarshalYAML(text: string): GoValue {
  const v = parseYaml(text, { version: '1.1' }) as unknown;
  return JSON.parse(JSON.stringify(v ?? null)) as GoValue;
}
