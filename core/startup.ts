/**
 * The part of core/ a program's start-up needs (durations, the env table, build info), without the model,
 * metrics, logging and RxJS that `core/index.ts` brings. Command trees, flags and `main.ts` files import
 * this instead of the barrel so that `meshctl version` or `--help` loads no more than it uses; a command's
 * body (loaded lazily) imports `core/index.ts` as usual.
 */
// NOTE: re-exports only modules that import nothing beyond node: built-ins and each other.
export * from './duration.js';
export * from './env/index.js';
export * from './program.js';
export * from './version.js';
