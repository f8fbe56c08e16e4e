import type { SchemaNode } from '../schema/builders.js';
import { childPath, type IssueCollector } from './issue.js';
import { checkDns1123Label, checkDuration, checkPercent, checkRe2Regex, checkWildcardHost } from './values.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Walks `value` along `schema` and runs the semantic check named by each node's `x-mesh-check`
 * (durations >= 1ms, RE2 regexes, percentages, ...). Assumes the value already passed the schema.
 */
export function runSchemaChecks(schema: SchemaNode, value: unknown, path: string, issues: IssueCollector): void {
  const check = schema['x-mesh-check'];
  if (check !== undefined) runCheck(check, value, path, issues);
  if ('items' in schema && Array.isArray(value)) {
    value.forEach((item, i) => runSchemaChecks(schema.items, item, childPath(path, i), issues));
    return;
  }
  if (!isRecord(value)) return;
  if ('properties' in schema) {
    for (const [key, child] of Object.entries(schema.properties)) {
      if (key in value) runSchemaChecks(child, value[key], childPath(path, key), issues);
    }
  } else if ('additionalProperties' in schema) {
    for (const [key, child] of Object.entries(value)) {
      runSchemaChecks(schema.additionalProperties, child, childPath(path, key), issues);
    }
  }
}

function runCheck(check: NonNullable<SchemaNode['x-mesh-check']>, value: unknown, path: string, issues: IssueCollector): void {
  let problem: string | undefined;
  switch (check) {
    case 'duration':
      problem = typeof value === 'string' ? checkDuration(value) : undefined;
      break;
    case 'regex':
      problem = typeof value === 'string' ? checkRe2Regex(value) : undefined;
      break;
    case 'percent':
      problem = typeof value === 'number' ? checkPercent(value) : undefined;
      break;
    case 'dns1123Label':
      problem = typeof value === 'string' ? checkDns1123Label(value) : undefined;
      break;
    case 'hostname':
      problem = typeof value === 'string' ? checkWildcardHost(value) : undefined;
      break;
  }
  if (problem !== undefined) issues.error(path, problem);
}
