// The public surface of cli/framework: a small cobra/pflag-like command-line framework.
export * from './cli-io.js';
export * from './color.js';
export * from './command.js';
export * from './completion.js';
export * from './completion-command.js';
export * from './completion-scripts.js';
export * from './errors.js';
export * from './flag.js';
export * from './help.js';
export * from './lazy-run.js';
export * from './parse-args.js';
export * from './run-cli.js';
