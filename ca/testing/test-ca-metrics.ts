// CaMetrics on a fresh prom-client registry, for tests (until they use core's createMetrics).
import { Counter, Gauge, Registry } from 'prom-client';
import { CA_COUNTERS, CA_GAUGES, type CaCounterName, type CaGaugeName, type CaMetrics } from '../server/ca-metrics.js';

/** CaMetrics plus a reader of current values. */
export interface TestCaMetrics extends CaMetrics {
  readonly registry: Registry;
  value(name: CaCounterName | CaGaugeName): Promise<number>;
}

/** Registers the certauth_server_* metrics on a new registry. */
export function createTestCaMetrics(): TestCaMetrics {
  const registry = new Registry();
  const counters = new Map(CA_COUNTERS.map((name) => [name, new Counter({ name, help: name, registers: [registry] })]));
  const gauges = new Map(CA_GAUGES.map((name) => [name, new Gauge({ name, help: name, registers: [registry] })]));
  return {
    registry,
    counter: (name) => counters.get(name)!,
    gauge: (name) => gauges.get(name)!,
    async value(name) {
      const metric = counters.get(name as CaCounterName) ?? gauges.get(name as CaGaugeName)!;
      const got = await metric.get();
      return got.values[0]?.value ?? 0;
    },
  };
}
