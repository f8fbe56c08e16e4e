/** How findings are printed: istioctl's `log` lines, or `json`/`yaml` lists of objects. */
import { stringify } from 'yaml';
import { messageText, originOf, referenceOfDiagnostic, type Diagnostic } from './diagnostic.js';
import { levelRank, type Level } from './message-catalogue.js';

/** The `-o` values. */
export const OUTPUT_FORMATS = ['log', 'json', 'yaml'] as const;
/** An output format. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Where the message codes are documented. */
export const DOCS_BASE = 'https://mesh.io/latest/docs/reference/config/analysis';

const COLORS: Record<Level, string> = { Error: '\x1b[1;31m', Warning: '\x1b[33m', Info: '\x1b[36m' };
const RESET = '\x1b[0m';

/** `Error [IST0101] (VirtualService default/reviews vs.yaml:3) Referenced host not found: "x"`. */
export function logLine(d: Diagnostic, color = false): string {
  const origin = originOf(d);
  const ref = referenceOfDiagnostic(d);
  const where = origin === '' ? '' : ` (${origin}${ref === '' ? '' : ` ${ref}`})`;
  const head = `${d.type.level} [${d.type.code}]`;
  return `${color ? `${COLORS[d.type.level]}${head}${RESET}` : head}${where} ${messageText(d)}`;
}

/** The object form of a finding (json and yaml output), keys as istioctl prints them. */
export function diagnosticObject(d: Diagnostic): Record<string, string> {
  return {
    code: d.type.code,
    documentationUrl: `${DOCS_BASE}/${d.type.code.toLowerCase()}/`,
    level: d.type.level,
    message: messageText(d),
    origin: originOf(d),
    reference: referenceOfDiagnostic(d),
  };
}

/** Renders findings in `format`; the log form ends every line with a newline, json/yaml a whole document. */
export function formatDiagnostics(ds: readonly Diagnostic[], format: OutputFormat, color = false): string {
  if (format === 'json') return `${JSON.stringify(ds.map(diagnosticObject), null, 2)}\n`;
  if (format === 'yaml') return ds.length === 0 ? '[]\n' : stringify(ds.map(diagnosticObject));
  return ds.map((d) => `${logLine(d, color)}\n`).join('');
}

/** Findings at or above `threshold`. */
export function atLeast(ds: readonly Diagnostic[], threshold: Level): Diagnostic[] {
  return ds.filter((d) => levelRank(d.type.level) >= levelRank(threshold));
}
