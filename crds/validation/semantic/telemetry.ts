import type { TelemetrySpec } from '../../types.js';
import { childPath, type IssueCollector } from '../issue.js';
import { checkPolicyAttachment } from './common.js';

/** Semantic checks of a Telemetry spec. */
export function validateTelemetry(spec: TelemetrySpec, issues: IssueCollector, path = 'spec'): void {
  checkPolicyAttachment(spec, path, issues);
  spec.tracing?.forEach((t, i) => {
    const at = childPath(childPath(path, 'tracing'), i);
    for (const [name, tag] of Object.entries(t.customTags ?? {})) {
      if (name === '') issues.error(childPath(at, 'customTags'), 'custom tag names must not be empty');
      if (tag.literal === undefined && tag.environment === undefined && tag.header === undefined) {
        issues.error(childPath(childPath(at, 'customTags'), name), 'custom tag must set one of literal, environment or header');
      }
    }
  });
  spec.metrics?.forEach((m, i) => {
    const at = childPath(childPath(path, 'metrics'), i);
    m.overrides?.forEach((o, j) => {
      const oAt = childPath(childPath(at, 'overrides'), j);
      if (o.match?.metric !== undefined && o.match.customMetric !== undefined) {
        issues.error(childPath(oAt, 'match'), 'only one of metric or customMetric may be set');
      }
      for (const [tag, op] of Object.entries(o.tagOverrides ?? {})) {
        const tAt = childPath(childPath(oAt, 'tagOverrides'), tag);
        const operation = op.operation ?? 'UPSERT';
        if (operation === 'UPSERT' && (op.value ?? '') === '') issues.error(tAt, 'value must be set when operation is UPSERT');
        if (operation === 'REMOVE' && op.value !== undefined) issues.error(tAt, 'value must not be set when operation is REMOVE');
      }
    });
  });
  spec.accessLogging?.forEach((a, i) => {
    if (a.filter !== undefined && (a.filter.expression ?? '') === '') {
      issues.error(childPath(childPath(childPath(path, 'accessLogging'), i), 'filter'), 'filter expression must not be empty');
    }
  });
}
