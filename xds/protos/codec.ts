/**
 * Encoding and decoding of Envoy messages from and to plain objects.
 *
 * Plain-object form (what `encode` takes and `decode` returns): protobufjs's form with camelCase field
 * names (`connectTimeout`), enums as names (`'EDS'`) or numbers, 64-bit integers as numbers, durations as
 * `{ seconds, nanos }`, wrappers as `{ value }`, Struct as `{ fields: { k: { stringValue } } }`, bytes as
 * Uint8Array (or base64 strings), and `google.protobuf.Any` either expanded as
 * `{ '@type': 'type.googleapis.com/<full name>', ...fields }` or pre-encoded as `anyOf(typeUrl, bytes)`.
 */
import protobuf from 'protobufjs';
import { lookupType } from './root.js';

/** A pre-encoded `google.protobuf.Any` in plain-object form (the field names of protobufjs's Any). */
export interface AnyObject {
  readonly type_url: string;
  readonly value: Uint8Array;
}

/** Thrown when a value cannot be encoded or bytes cannot be decoded as the named type. */
export class ProtoCodecError extends Error {
  constructor(
    readonly typeName: string,
    message: string,
  ) {
    super(`${typeName}: ${message}`);
    this.name = 'ProtoCodecError';
  }
}

/**
 * Encodes a plain object as the named message (`envoy.config.cluster.v3.Cluster` or its type URL).
 * NOTE: protobufjs ignores unknown keys; run `validate` in tests to catch misspelled fields.
 */
export function encode(typeName: string, value: object): Uint8Array {
  const type = lookupType(typeName);
  try {
    return type.encode(type.fromObject(value as Record<string, unknown>)).finish();
  } catch (e) {
    throw new ProtoCodecError(typeName, `cannot encode: ${(e as Error).message}`);
  }
}

/** Decodes bytes to a protobufjs message (for code that walks the reflection types). */
export function decodeMessage(typeName: string, bytes: Uint8Array): protobuf.Message {
  const type = lookupType(typeName);
  try {
    return type.decode(bytes);
  } catch (e) {
    throw new ProtoCodecError(typeName, `cannot decode: ${(e as Error).message}`);
  }
}

const TO_OBJECT: protobuf.IConversionOptions = { enums: String, longs: Number, json: true };

/**
 * Decodes bytes to the plain-object form `encode` accepts (Any expanded with `@type`, enums as names,
 * 64-bit integers as numbers, bytes as base64 strings). `encode(t, decode(t, b))` gives `b` back.
 */
export function decode(typeName: string, bytes: Uint8Array): Record<string, unknown> {
  const type = lookupType(typeName);
  return type.toObject(decodeMessage(typeName, bytes), TO_OBJECT) as Record<string, unknown>;
}

/** Wraps already-encoded bytes as an Any for use inside a plain object given to `encode`. */
export function anyOf(typeUrl: string, bytes: Uint8Array): AnyObject {
  return { type_url: typeUrl, value: bytes };
}

/** `type.googleapis.com/<full name>` for a message type name. */
export function typeUrlOf(typeName: string): string {
  return `type.googleapis.com/${typeName}`;
}
