// Introspection (Istio's ControlZ, renamed): an HTML page and a JSON API over a program's logging,
// process, memory, environment, metrics and version.
export * from './topics.js';
export * from './ctrlz-page.js';
export * from './start-ctrlz.js';
export * from './request-guard.js';
