// The public surface of core/: shared runtime pieces with no imports from other folders of ours.
export * from './duration.js';
export * from './program.js';
export * from './model/push-request.js';
export * from './env/index.js';
