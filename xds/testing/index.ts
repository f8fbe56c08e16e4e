// Test helpers of the ADS transport: real-gRPC SotW and delta clients, a fake generator, a server harness.
export * from './ads-client.js';
export * from './ads-harness.js';
export * from './ads-stream.js';
export * from './delta-ads-client.js';
export * from './eventually.js';
export * from './fake-generator.js';
export * from './resource-name.js';
export { freePort } from './free-port.js';
export { StuckClient } from './stuck-client.js';
