// inspect/: reading a running mesh for meshctl (reaching pods through the API server, config dumps,
// proxy and control-plane inspection).
export * from './reach/index.js';
export * from './configdump/index.js';
export * from './dashboard/index.js';
export * from './dataplane/index.js';
export * from './describe/describe-cluster.js';
export * from './describe/describe-render.js';
export * from './describe/describe-workload.js';
export * from './bug-report/log-spec.js';
export * from './bug-report/time-range.js';
export * from './bug-report/bug-report-collect.js';
export * from './bug-report/bug-report-archive.js';
export * from './bug-report/log-importance.js';
