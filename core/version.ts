import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** What a program reports as its build: `version` subcommands, `mesh_build`, introspection. */
export interface BuildInfo {
  readonly version: string;
  readonly gitCommit: string;
  readonly gitTag: string;
  readonly buildStatus: string;
  readonly nodeVersion: string;
  readonly golangVersion?: string;
}

/** Where build information is read from; defaults are relative to the compiled module (`dist/core/`). */
export interface BuildInfoSources {
  /** Written at build time by `hack/write-build-info.mjs`: `{ version, gitCommit, gitTag, buildStatus }`. */
  buildInfoPath: string;
  /** The package's manifest, whose `version` is used when the build file is absent. */
  packageJsonPath: string;
}

/** Thrown when a build-information file exists but is not a JSON object. */
export class BuildInfoError extends Error {
  override readonly name = 'BuildInfoError';
}

const UNKNOWN = 'unknown';
const DEFAULT_SOURCES: BuildInfoSources = {
  buildInfoPath: fileURLToPath(new URL('../build-info.json', import.meta.url)),
  packageJsonPath: fileURLToPath(new URL('../../package.json', import.meta.url)),
};
let cached: BuildInfo | undefined;

/**
 * The build information of this program: `dist/build-info.json` when the build wrote it, else the
 * package.json version with `unknown` commit, tag and status; `nodeVersion` is `process.version`.
 * Read once and cached when called without sources.
 */
export function buildInfo(sources?: BuildInfoSources): BuildInfo {
  if (sources) return readBuildInfo(sources);
  return (cached ??= readBuildInfo(DEFAULT_SOURCES));
}

function readBuildInfo(sources: BuildInfoSources): BuildInfo {
  const built = readJsonObject(sources.buildInfoPath);
  const pkg = readJsonObject(sources.packageJsonPath);
  const text = (obj: Record<string, unknown> | undefined, key: string): string | undefined => {
    const value = obj?.[key];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  return {
    version: text(built, 'version') ?? text(pkg, 'version') ?? UNKNOWN,
    gitCommit: text(built, 'gitCommit') ?? UNKNOWN,
    gitTag: text(built, 'gitTag') ?? UNKNOWN,
    buildStatus: text(built, 'buildStatus') ?? UNKNOWN,
    nodeVersion: process.version,
  };
}

function readJsonObject(path: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new BuildInfoError(`${path}: not JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BuildInfoError(`${path}: not a JSON object`);
  return value as Record<string, unknown>;
}
