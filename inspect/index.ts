// inspect/: reading a running mesh for meshctl (reaching pods through the API server, config dumps,
// proxy and control-plane inspection).
export * from './reach/index.js';
export * from './configdump/index.js';
