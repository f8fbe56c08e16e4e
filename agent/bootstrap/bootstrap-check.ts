/**
 * Checks rendered bootstrap text the way the data-plane proxy would load it: JSON, then protobuf JSON
 * of `envoy.config.bootstrap.v3.Bootstrap` (no unknown fields), then the protoc-gen-validate rules.
 */
import { fromProtoJson, ProtoJsonError } from '../proto-json.js';
import { encode, validate } from '../xds-protos.js';

/** The Bootstrap message type. */
export const BOOTSTRAP_TYPE = 'envoy.config.bootstrap.v3.Bootstrap';

/** A bootstrap the proxy would refuse; `source` names the template (built-in or the file). */
export class BootstrapError extends Error {
  override readonly name = 'BootstrapError';
}

/** Parses and validates rendered bootstrap JSON; returns its encoded Bootstrap bytes. */
export function checkBootstrap(text: string, source: string): Uint8Array {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new BootstrapError(`bootstrap from ${source}: the rendered template is not JSON: ${(e as Error).message}`);
  }
  let plain: Record<string, unknown>;
  try {
    plain = fromProtoJson(BOOTSTRAP_TYPE, json);
  } catch (e) {
    if (e instanceof ProtoJsonError) throw new BootstrapError(`bootstrap from ${source}: not a ${BOOTSTRAP_TYPE}: ${e.message}`);
    throw e;
  }
  const issues = validate(BOOTSTRAP_TYPE, plain);
  if (issues.length > 0) {
    throw new BootstrapError(`bootstrap from ${source}: ${BOOTSTRAP_TYPE} is invalid: ${issues.map((i) => `${i.path || '<root>'}: ${i.message}`).join('; ')}`);
  }
  return encode(BOOTSTRAP_TYPE, plain);
}
