/**
 * Small builders for structural OpenAPI v3 schema objects.
 *
 * Each builder returns a plain JSON-serialisable schema object whose TypeScript type keeps the literal
 * shape (property names, required keys, enum values), so {@link Infer} can derive the value type from the
 * very object that is rendered into a CRD and compiled by ajv. Keys starting with `x-mesh-` are ours: they
 * drive the semantic checks (see `validation/schema-checks.ts`) and are stripped when rendering CRDs.
 */

/** A semantic check attached to a schema node, run after the structural validation. */
export const SCHEMA_CHECKS = ['duration', 'regex', 'percent', 'dns1123Label', 'hostname'] as const;
/** One of {@link SCHEMA_CHECKS}. */
export type SchemaCheck = (typeof SCHEMA_CHECKS)[number];

/**
 * A CEL rule the API server checks on a schema node (`x-kubernetes-validations`): `self` is the node's value.
 * meshd's own validator does not evaluate CEL; its semantic checks give the same `message` (proved per rule by
 * `validation/istio-cel-rules.test.ts`, and against a real API server by `e2e/crds-cel.test.ts`).
 */
export interface CelRule {
  readonly rule: string;
  readonly message: string;
  readonly fieldPath?: string;
  readonly reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}

/** Options shared by every node. */
export interface CommonOptions {
  readonly description?: string;
  readonly 'x-mesh-check'?: SchemaCheck;
  readonly 'x-kubernetes-validations'?: readonly CelRule[];
  /**
   * Keys only the rendered CRD gets (merged into the node by `toCrdSchema`), e.g. Istio's `oneOf` for "at most one
   * of these fields": meshd's semantic checks refuse the same with clearer messages than ajv's for `oneOf`.
   */
  readonly 'x-mesh-crd'?: Readonly<Record<string, unknown>>;
}

/** Options of a string node. */
export interface StringOptions extends CommonOptions {
  readonly pattern?: string;
  readonly format?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
}

/** Options of an integer or number node. */
export interface NumberOptions extends CommonOptions {
  readonly format?: 'int32' | 'int64' | 'uint32' | 'uint64' | 'double' | 'float';
  readonly minimum?: number;
  readonly maximum?: number;
  readonly nullable?: boolean;
}

/** Options of an array node. */
export interface ArrayOptions extends CommonOptions {
  readonly minItems?: number;
  readonly maxItems?: number;
}

/** Options of an object node. */
export interface ObjectOptions extends CommonOptions {
  readonly minProperties?: number;
  readonly maxProperties?: number;
  /** Keep fields the schema does not name (free-form parts only). */
  readonly 'x-kubernetes-preserve-unknown-fields'?: true;
}

/** Any schema node made by these builders. */
export type SchemaNode =
  | StringNode
  | EnumNode
  | IntegerNode
  | NumberNode
  | BooleanNode
  | ArrayNode
  | ObjectNode
  | MapNode
  | IntOrStringNode
  | FreeFormNode;

export interface StringNode extends StringOptions { readonly type: 'string' }
export interface EnumNode<E extends string = string> extends CommonOptions {
  readonly type: 'string';
  readonly enum: readonly E[];
}
export interface IntegerNode extends NumberOptions { readonly type: 'integer' }
export interface NumberNode extends NumberOptions { readonly type: 'number' }
export interface BooleanNode extends CommonOptions { readonly type: 'boolean'; readonly nullable?: boolean }
export interface ArrayNode<I extends SchemaNode = SchemaNode> extends ArrayOptions {
  readonly type: 'array';
  readonly items: I;
}
export interface ObjectNode<
  P extends Readonly<Record<string, SchemaNode>> = Readonly<Record<string, SchemaNode>>,
  R extends string = string,
> extends ObjectOptions {
  readonly type: 'object';
  readonly properties: P;
  readonly required?: readonly R[];
}
export interface MapNode<V extends SchemaNode = SchemaNode> extends ObjectOptions {
  readonly type: 'object';
  readonly additionalProperties: V;
}
export interface IntOrStringNode extends CommonOptions {
  readonly 'x-kubernetes-int-or-string': true;
  readonly anyOf: readonly [{ readonly type: 'integer' }, { readonly type: 'string' }];
}
export interface FreeFormNode extends CommonOptions {
  readonly type: 'object';
  readonly 'x-kubernetes-preserve-unknown-fields': true;
}

/** A string. */
export function str<const O extends StringOptions>(options?: O): StringNode & NoInfer<O> {
  return { type: 'string', ...(options as O) };
}

/** A string restricted to the given values (an Istio proto enum). */
export function enumOf<const E extends string>(values: readonly E[], options?: CommonOptions): EnumNode<E> {
  return { type: 'string', enum: values, ...options };
}

/** An integer; `format` says its protobuf width. */
export function int<const O extends NumberOptions>(options?: O): IntegerNode & NoInfer<O> {
  return { type: 'integer', ...(options as O) };
}

/** An unsigned 32-bit integer (protobuf uint32). */
export function uint32(options?: CommonOptions): IntegerNode {
  return { type: 'integer', minimum: 0, maximum: 4294967295, ...options };
}

/** A port number 1..65535. */
export function portNumber(options?: CommonOptions): IntegerNode {
  return { type: 'integer', minimum: 1, maximum: 65535, ...options };
}

/** A floating-point number. */
export function num<const O extends NumberOptions>(options?: O): NumberNode & NoInfer<O> {
  return { type: 'number', format: 'double', ...(options as O) };
}

/** A boolean. */
export function bool(options?: CommonOptions & { readonly nullable?: boolean }): BooleanNode {
  return { type: 'boolean', ...options };
}

/** An array of `items`. */
export function arr<const I extends SchemaNode>(items: I, options?: ArrayOptions): ArrayNode<I> {
  return { type: 'array', items, ...options };
}

/** An object with known properties; `required` names the keys that must be present. */
export function obj<const P extends Readonly<Record<string, SchemaNode>>, const R extends keyof P & string = never>(
  properties: P,
  required?: readonly R[],
  options?: ObjectOptions,
): ObjectNode<P, NoInfer<R>> {
  return { type: 'object', properties, ...(required && required.length > 0 ? { required } : {}), ...options };
}

/** An object with arbitrary keys whose values all follow `values` (a protobuf map). */
export function map<const V extends SchemaNode>(values: V, options?: ObjectOptions): MapNode<V> {
  return { type: 'object', additionalProperties: values, ...options };
}

/** A value that is an integer or a string (`x-kubernetes-int-or-string`). */
export function intOrString(options?: CommonOptions): IntOrStringNode {
  return { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }], ...options };
}

/** A free-form object (protobuf Struct / Any / raw configuration): unknown fields are kept. */
export function freeForm(options?: CommonOptions): FreeFormNode {
  return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, ...options };
}

/** `node` with `rules` appended to its `x-kubernetes-validations` (same type: the rules do not change its values). */
export function withRules<const N extends SchemaNode>(node: N, ...rules: readonly CelRule[]): N {
  return { ...node, 'x-kubernetes-validations': [...(node['x-kubernetes-validations'] ?? []), ...rules] };
}

/** Istio's schema for a proto `oneof` (at most one of `fields`): none of them set, or exactly one. */
export function atMostOneOf(...fields: readonly string[]): { readonly oneOf: readonly unknown[] } {
  const each = fields.map((f) => ({ required: [f] }));
  return { oneOf: [{ not: { anyOf: each } }, ...each] };
}

/** Go/protobuf duration text pattern: one or more `<number><unit>` groups, e.g. `1s`, `0.5s`, `1h30m`. */
export const DURATION_PATTERN = '^([0-9]+(\\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$';

/** A protobuf Duration written as Go duration text (`1s`, `0.5s`, `100ms`, `1h30m`); must be >= 1ms. */
export function duration(options?: CommonOptions): StringNode {
  return { type: 'string', pattern: DURATION_PATTERN, 'x-mesh-check': 'duration', ...options };
}

/** The same text with no minimum: Istio's fields marked `duration-validation:none` (`0s` allowed). */
export function anyDuration(options?: CommonOptions): StringNode {
  return { type: 'string', pattern: DURATION_PATTERN, ...options };
}
