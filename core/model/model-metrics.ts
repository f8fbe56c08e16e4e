/**
 * Maps the model's metric hooks to the program's metric handles (core/metrics).
 */
import type { Metrics } from '../metrics/index.js';
import type { ModelMetrics } from './mesh-model.js';

/** ModelMetrics recording into `metrics`: pilot_inbound_updates, pilot_push_triggers, pilot_debounce_time, pilot_pushcontext_init_seconds, pilot_services, pilot_virt_services, pilot_eds_no_instances, pilot_destrule_subsets. */
export function modelMetricsFrom(metrics: Metrics): ModelMetrics {
  const inbound = metrics.counter('pilot_inbound_updates');
  const triggers = metrics.counter('pilot_push_triggers');
  const debounce = metrics.histogram('pilot_debounce_time');
  const init = metrics.histogram('pilot_pushcontext_init_seconds');
  const services = metrics.gauge('pilot_services');
  const vs = metrics.gauge('pilot_virt_services');
  const noInstances = metrics.gauge('pilot_eds_no_instances');
  const dupSubsets = metrics.gauge('pilot_destrule_subsets');
  return {
    inboundUpdate: (type) => inbound.inc({ type }),
    pushTrigger: (reason, n) => triggers.inc({ type: reason }, n),
    debounceTime: (s) => debounce.observe(s),
    pushContextInit: (s) => init.observe(s),
    counts: (s, v) => {
      services.set(s);
      vs.set(v);
    },
    servicesWithoutInstances: (n) => noInstances.set(n),
    duplicateSubsets: (n) => dupSubsets.set(n),
  };
}
