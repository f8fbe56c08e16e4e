/**
 * The index of meshd's debug interface, as istiod's: `/debug` and `/debug/` list every `/debug/*` endpoint
 * with what it shows (text, or an HTML page of links for a browser), `/debug/list` the paths as JSON.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteHandler } from '../../core/index.js';

/** What each debug endpoint shows (istiod's wording where istiod has the endpoint). */
export const DEBUG_HELP: Readonly<Record<string, string>> = {
  '/debug/adsz': 'Status and debug interface for ADS',
  '/debug/config_dump': 'ConfigDump in the form of the Envoy admin config dump API for passed in proxyID',
  '/debug/configz': 'Debug support for config',
  '/debug/connections': 'Info about the connected XDS clients',
  '/debug/endpointz': 'Debug support for endpoints',
  '/debug/list': 'List all supported debug commands in json',
  '/debug/push_status': 'Last PushContext Details',
  '/debug/registryz': 'Debug support for registry',
  '/debug/rejectedz': 'Configuration meshd rejected, with why (the previous version is still served)',
  '/debug/syncz': 'Synchronization status of all Envoys connected to this Pilot instance',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The text index: one `path  description` line per endpoint, sorted. */
export function debugIndexText(paths: readonly string[]): string {
  const width = Math.max(0, ...paths.map((p) => p.length));
  return paths.map((p) => `${p.padEnd(width)}  ${DEBUG_HELP[p] ?? ''}`.trimEnd()).join('\n') + '\n';
}

/** The HTML index: a table of links. */
export function debugIndexHtml(paths: readonly string[]): string {
  const rows = paths.map((p) => `<tr><td><a href="${escapeHtml(p)}">${escapeHtml(p)}</a></td><td>${escapeHtml(DEBUG_HELP[p] ?? '')}</td></tr>`);
  return `<!DOCTYPE html>\n<html><head><title>meshd debug</title></head><body>\n<h1>meshd debug endpoints</h1>\n<table>\n<tr><th>Endpoint</th><th>Description</th></tr>\n${rows.join('\n')}\n</table>\n</body></html>\n`;
}

/** Adds `/debug`, `/debug/` and `/debug/list` to `routes`; they list the `/debug/*` paths `routes` has when asked. */
export function addDebugIndex(routes: Map<string, RouteHandler>): void {
  const paths = (): string[] => [...routes.keys()].filter((p) => p.startsWith('/debug/') && p !== '/debug/').sort();
  const index = (req: IncomingMessage, res: ServerResponse): void => {
    if (/\btext\/html\b/.test(req.headers.accept ?? '')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(debugIndexHtml(paths()));
    } else {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(debugIndexText(paths()));
    }
  };
  routes.set('/debug', index);
  routes.set('/debug/', index);
  routes.set('/debug/list', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(`${JSON.stringify(paths(), null, 2)}\n`));
}
