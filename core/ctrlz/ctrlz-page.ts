import { LOG_LEVELS } from '../log/index.js';
import type { ProgramName } from '../program.js';
import type { ScopeInfo } from './topics.js';

/** What the page shows. */
export interface CtrlzPageData {
  program: ProgramName;
  scopes: readonly ScopeInfo[];
  proc: Record<string, unknown>;
  mem: Record<string, number>;
  env: readonly Record<string, unknown>[];
  metrics: readonly { name: string; type: string; values: readonly { labels: object; value: number }[] }[];
  version: object;
}

const esc = (v: unknown): string =>
  String(v).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const table = (head: readonly string[], rows: readonly (readonly unknown[])[]): string =>
  `<table><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${typeof c === 'object' && c !== null && 'html' in c ? (c as { html: string }).html : esc(c)}</td>`).join('')}</tr>`)
    .join('')}</table>`;

const select = (scope: string, field: string, current: string): { html: string } => ({
  html: `<select data-scope="${esc(scope)}" data-field="${field}">${LOG_LEVELS.map(
    (l) => `<option${l === current ? ' selected' : ''}>${l}</option>`,
  ).join('')}</select>`,
});

const SCRIPT = `document.querySelectorAll('select[data-scope]').forEach((s) => s.addEventListener('change', async () => {
  const res = await fetch('/scopej/' + encodeURIComponent(s.dataset.scope), { method: 'PUT',
    headers: { 'content-type': 'application/json' }, body: JSON.stringify({ [s.dataset.field]: s.value }) });
  document.getElementById('status').textContent = res.ok ? 'Set ' + s.dataset.scope + ' ' + s.dataset.field + ' to ' + s.value : await res.text();
}));`;

const STYLE = `body{font:14px system-ui,sans-serif;margin:2em;color:#222}h1{font-size:1.4em}h2{font-size:1.1em;margin-top:2em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;vertical-align:top}th{background:#f3f3f3}
#status{color:#06c;min-height:1.2em}`;

/** The single introspection page: scopes with level selectors, process, memory, env, metrics, version. */
export function renderCtrlzPage(d: CtrlzPageData): string {
  const values = (m: CtrlzPageData['metrics'][number]): string =>
    m.values.map((v) => `${Object.entries(v.labels).map(([k, x]) => `${k}=${String(x)}`).join(',')} ${v.value}`.trim()).join('; ');
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(d.program)} introspection</title><style>${STYLE}</style></head><body>
<h1>${esc(d.program)} introspection</h1><p id="status"></p>
<h2>Logging scopes</h2>${table(['scope', 'output level', 'stack trace level', 'callers'], d.scopes.map((s) => [s.name, select(s.name, 'output_level', s.output_level), select(s.name, 'stack_trace_level', s.stack_trace_level), s.log_callers]))}
<h2>Version</h2>${table(['field', 'value'], Object.entries(d.version))}
<h2>Process</h2>${table(['field', 'value'], Object.entries(d.proc).map(([k, v]) => [k, Array.isArray(v) ? v.join(' ') : v]))}
<h2>Memory (bytes)</h2>${table(['field', 'value'], Object.entries(d.mem))}
<h2>Environment variables</h2>${table(['name', 'type', 'value', 'set'], d.env.map((e) => [e['name'], e['type'], e['value'] ?? '', e['set']]))}
<h2>Metrics</h2>${table(['name', 'type', 'values'], d.metrics.map((m) => [m.name, m.type, values(m)]))}
<script>${SCRIPT}</script></body></html>`;
}
