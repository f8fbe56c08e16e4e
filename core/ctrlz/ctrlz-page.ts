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
  args: readonly string[];
}

/** The topics, each with its HTML page `/<topic>z/` and JSON `/<topic>j/` (Istio's ControlZ). */
export const CTRLZ_TOPICS = ['scope', 'mem', 'env', 'proc', 'arg', 'version', 'metric'] as const;

/** One ControlZ topic. */
export type CtrlzTopic = (typeof CTRLZ_TOPICS)[number];

const TITLES: Readonly<Record<CtrlzTopic, string>> = {
  scope: 'Logging scopes',
  mem: 'Memory (bytes)',
  env: 'Environment variables',
  proc: 'Process',
  arg: 'Command-line arguments',
  version: 'Version',
  metric: 'Metrics',
};

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

function section(topic: CtrlzTopic, d: CtrlzPageData): string {
  const values = (m: CtrlzPageData['metrics'][number]): string =>
    m.values.map((v) => `${Object.entries(v.labels).map(([k, x]) => `${k}=${String(x)}`).join(',')} ${v.value}`.trim()).join('; ');
  switch (topic) {
    case 'scope':
      return table(['scope', 'output level', 'stack trace level', 'callers'], d.scopes.map((s) => [s.name, select(s.name, 'output_level', s.output_level), select(s.name, 'stack_trace_level', s.stack_trace_level), s.log_callers]));
    case 'version':
      return table(['field', 'value'], Object.entries(d.version));
    case 'proc':
      return table(['field', 'value'], Object.entries(d.proc).map(([k, v]) => [k, Array.isArray(v) ? v.join(' ') : v]));
    case 'mem':
      return table(['field', 'value'], Object.entries(d.mem));
    case 'env':
      return table(['name', 'type', 'value', 'set'], d.env.map((e) => [e['name'], e['type'], e['value'] ?? '', e['set']]));
    case 'arg':
      return table(['#', 'argument'], d.args.map((a, i) => [i, a]));
    case 'metric':
      return table(['name', 'type', 'values'], d.metrics.map((m) => [m.name, m.type, values(m)]));
  }
}

function page(title: string, body: string): string {
  const nav = `<p><a href="/">all</a> ${CTRLZ_TOPICS.map((t) => `| <a href="/${t}z/">${esc(TITLES[t].replace(/ \(bytes\)$/, ''))}</a>`).join(' ')}</p>`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title><style>${STYLE}</style></head><body>
<h1>${esc(title)}</h1>${nav}<p id="status"></p>
${body}
<script>${SCRIPT}</script></body></html>`;
}

/** The introspection home page: every topic (scopes with level selectors, version, process, memory, env, arguments, metrics). */
export function renderCtrlzPage(d: CtrlzPageData): string {
  const order: readonly CtrlzTopic[] = ['scope', 'version', 'proc', 'mem', 'env', 'arg', 'metric'];
  return page(`${d.program} introspection`, order.map((t) => `<h2>${esc(TITLES[t])}</h2>${section(t, d)}`).join('\n'));
}

/** One topic's page (`/scopez/`: the scopes with selectors that PUT to `/scopej/<scope>`, ...). */
export function renderTopicPage(topic: CtrlzTopic, d: CtrlzPageData): string {
  return page(`${d.program}: ${TITLES[topic]}`, section(topic, d));
}
