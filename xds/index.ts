// The public surface of xds/.
export * from './server/contracts.js';
