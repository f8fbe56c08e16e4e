/** The levels of the logging flags, lowest first; `none` turns a scope off. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'fatal', 'none'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The pseudo-scope that stands for every scope in level lists. */
export const ALL_SCOPES = 'all';
/** The scope of records logged without one; omitted in console lines. */
export const DEFAULT_SCOPE = 'default';

/** Thrown for a bad logging setting: an unknown scope or level, or a target that cannot be opened. */
export class LogConfigError extends Error {
  override readonly name = 'LogConfigError';
}

/** True when `text` is one of LOG_LEVELS. */
export function isLogLevel(text: string): text is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(text);
}

/** `text` as a level, or LogConfigError naming it and the levels there are. */
export function parseLogLevel(text: string, where: string): LogLevel {
  if (isLogLevel(text)) return text;
  throw new LogConfigError(`invalid log level "${text}" in ${where} (use ${LOG_LEVELS.join(', ')})`);
}

/** `scope` itself when known, else LogConfigError naming it and listing the valid scopes. */
export function checkScope(scope: string, scopes: readonly string[], where: string): string {
  if (scope === ALL_SCOPES || scopes.includes(scope)) return scope;
  throw new LogConfigError(`unknown scope "${scope}" in ${where} (valid scopes: ${scopes.join(', ')})`);
}

/** The real scopes of a scope list: without the `all` pseudo-scope. */
export function realScopes(scopes: readonly string[]): string[] {
  return scopes.filter((s) => s !== ALL_SCOPES);
}

/**
 * Parses a level list like `default:info,ads:debug`. A bare level sets `default`. As in Istio, an
 * `all:<level>` item sets every scope and overrides the other items. Empty items are skipped.
 * Throws LogConfigError naming an unknown scope or level.
 */
export function parseScopeLevels(text: string, scopes: readonly string[]): Map<string, LogLevel> {
  const levels = new Map<string, LogLevel>();
  let all: LogLevel | undefined;
  for (const item of text.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const colon = item.lastIndexOf(':');
    const scope = colon < 0 ? DEFAULT_SCOPE : item.slice(0, colon).trim();
    const level = parseLogLevel(item.slice(colon + 1).trim(), `"${item}"`);
    checkScope(scope, scopes, `"${item}"`);
    if (scope === ALL_SCOPES) all ??= level;
    else levels.set(scope, level);
  }
  return all === undefined ? levels : new Map(realScopes(scopes).map((s) => [s, all]));
}

/** Parses a comma-separated scope list (`--log_caller`); `all` stands for every scope. */
export function parseScopeList(text: string, scopes: readonly string[]): Set<string> {
  const set = new Set<string>();
  for (const item of text.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    checkScope(item, scopes, `"${text}"`);
    for (const s of item === ALL_SCOPES ? realScopes(scopes) : [item]) set.add(s);
  }
  return set;
}
