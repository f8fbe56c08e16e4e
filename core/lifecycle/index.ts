// Listeners and lifecycle: Go-style listen addresses, binding with clear errors, ordered shutdown,
// and the self-monitoring HTTP server.
export * from './listen-address.js';
export * from './listen.js';
export * from './lifecycle.js';
export * from './monitoring-server.js';
export * from './grpc-shutdown.js';
export * from './work-limiter.js';
