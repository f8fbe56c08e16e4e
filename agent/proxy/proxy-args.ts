/** The command line the agent starts the data-plane proxy with (Istio's `envoy` arguments). */

/** What the proxy's arguments are built from. */
export interface ProxyArgsOptions {
  readonly bootstrapPath: string;
  readonly drainDurationMs: number;
  /** `--proxyLogLevel`, e.g. `warning,misc:error`: the first bare level is `-l`, scoped ones `--component-log-level`. */
  readonly logLevel: string;
  /** `--proxyComponentLogLevel` (deprecated), appended to the scoped levels. */
  readonly componentLogLevel?: string;
  /** Worker threads; 0 leaves the proxy's default (one per core). */
  readonly concurrency: number;
  readonly ipv6?: boolean;
  readonly outlierLogPath?: string;
}

const LEVELS = new Set(['trace', 'debug', 'info', 'warning', 'warn', 'error', 'critical', 'off']);

/** Thrown for a proxy log level that is not one of the proxy's levels; names the flag. */
export class ProxyLogLevelError extends Error {
  override readonly name = 'ProxyLogLevelError';
}

/** Splits `--proxyLogLevel` into the proxy's `-l` and `--component-log-level`; throws naming the bad part. */
export function splitLogLevel(text: string, component = ''): { level: string; components: string[] } {
  let level = 'warning';
  const components: string[] = [];
  for (const part of [...text.split(','), ...component.split(',')].map((p) => p.trim()).filter(Boolean)) {
    const [scope, lvl] = part.includes(':') ? part.split(':', 2) : [undefined, part];
    if (!LEVELS.has(lvl!)) throw new ProxyLogLevelError(`--proxyLogLevel: "${part}" is not a level (choose from trace, debug, info, warning, error, critical, off)`);
    if (scope === undefined) level = lvl!;
    else components.push(`${scope}:${lvl}`);
  }
  return { level, components };
}

/** The proxy's arguments, in Istio's order. */
export function proxyArgs(o: ProxyArgsOptions): string[] {
  const { level, components } = splitLogLevel(o.logLevel, o.componentLogLevel);
  const args = [
    '-c', o.bootstrapPath,
    '--drain-time-s', String(Math.round(o.drainDurationMs / 1000)),
    '--drain-strategy', 'immediate',
    '--local-address-ip-version', o.ipv6 ? 'v6' : 'v4',
    '--file-flush-interval-msec', '1000',
    '--disable-hot-restart',
    '--allow-unknown-static-fields',
    '-l', level,
  ];
  if (components.length > 0) args.push('--component-log-level', components.join(','));
  if (o.concurrency > 0) args.push('--concurrency', String(o.concurrency));
  if (o.outlierLogPath) args.push('--log-path', o.outlierLogPath);
  return args;
}
