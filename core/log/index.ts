// Logging: per-scope pino loggers configured from the spec's logging flags.
export * from './log-levels.js';
export * from './scopes.js';
export * from './console-format.js';
export * from './rotating-file.js';
export * from './scope-table.js';
export * from './create-logging.js';
