// The public surface of controllers/.
export * from './orch/index.js';
