/**
 * The Go values a template sees, modelled explicitly so that formatting, comparison and function
 * argument checks behave as Go's reflection-based text/template does.
 *
 * Mapping (what the API accepts as data and what functions return):
 * - `undefined`: Go's invalid `reflect.Value` (a missing map key); prints `<no value>`.
 * - `null`: Go's `nil` (an `interface{}` holding nothing); prints `<nil>` through `print`.
 * - `string`, `boolean`: Go `string`, `bool`.
 * - `number`: Go `float64`. NOTE: this is deliberate. Helm reads values with sigs.k8s.io/yaml, which
 *   converts YAML to JSON and decodes it into `interface{}`, so every number in `.Values` is a float64
 *   (`{{ .Values.big }}` of 1000000 prints `1e+06` in Helm too); Istio's injector decodes its `values`
 *   the same way. Integers must be tagged explicitly with {@link GoInt}.
 * - {@link GoInt}: Go `int`, `int64`, `int32`, ... (what `len`, `add`, `atoi`, range indexes and integer
 *   literals produce). Values beyond 2^53 lose precision (JavaScript numbers back them).
 * - arrays: Go `[]interface {}` unless tagged with {@link typedSlice} (for example `[]string`).
 * - plain objects: Go `map[string]interface {}` unless tagged with {@link typedMap}
 *   (for example `map[string]string`, whose missing keys give `""` rather than `<no value>` under
 *   `missingkey=zero`, and through `index`).
 * - {@link GoStruct}: a Go struct (field access of a missing field is an error, as in Go).
 * - {@link GoFunction}: a function value (for `call`).
 */
export type GoValue =
  | undefined
  | null
  | string
  | boolean
  | number
  | GoInt
  | GoComplex
  | GoStruct
  | GoFunction
  | GoValue[]
  | GoMap;

/** A Go map with string keys (a plain object; keys are iterated in sorted order). */
export interface GoMap {
  [key: string]: GoValue;
}

/** Go's integer types that {@link GoInt} can carry. */
export type GoIntType = 'int' | 'int8' | 'int16' | 'int32' | 'int64' | 'uint' | 'uint8' | 'uint16' | 'uint32' | 'uint64';

/** A Go integer of an explicit type. */
export class GoInt {
  /**
   * @param value the integer (truncated toward zero if not integral)
   * @param type the Go type name, `int` by default
   */
  constructor(
    readonly value: number,
    readonly type: GoIntType = 'int',
  ) {
    this.value = Math.trunc(value);
  }
  /** True for the unsigned types. */
  get unsigned(): boolean {
    return this.type.startsWith('u');
  }
}

/** A Go complex128 (from a complex constant such as `1i` or `1+2i`). */
export class GoComplex {
  constructor(
    readonly re: number,
    readonly im: number,
  ) {}
}

/** A Go struct value: a type name (as `%T` prints it, e.g. `main.Pod`) and its exported fields. */
export class GoStruct {
  /**
   * @param typeName the type name `%T` prints
   * @param fields exported fields
   * @param methods exported methods, called as `.Struct.Method arg...` (e.g. Helm's `.Files.Get`)
   */
  constructor(
    readonly typeName: string,
    readonly fields: Record<string, GoValue>,
    readonly methods: Record<string, GoFunction> = {},
  ) {}
}

/** Signature element types the executor checks arguments against (a subset of Go's types). */
export type GoParamType =
  | 'interface {}'
  | 'string'
  | 'bool'
  | 'int'
  | 'int64'
  | 'float64'
  | '[]interface {}'
  | '[]string'
  | 'map[string]interface {}'
  | 'reflect.Value';

/** A callable Go function with its signature (used for template functions and `call`). */
export class GoFunction {
  /**
   * @param params fixed parameter types
   * @param fn the implementation; throw to return an error (the executor wraps it as Go does)
   * @param variadic the element type of a trailing `...T` parameter, if any
   * @param returnsError whether the Go signature has a second `error` result (changes nothing but typeOf)
   */
  constructor(
    readonly params: GoParamType[],
    readonly fn: (...args: GoValue[]) => GoValue,
    readonly variadic?: GoParamType,
    readonly returnsError = false,
  ) {}
}

const TYPE_TAG = Symbol('go-type');

/** Tags an array as a Go slice of the given element type (e.g. `string` -> `[]string`). */
export function typedSlice(elemType: string, items: GoValue[]): GoValue[] {
  Object.defineProperty(items, TYPE_TAG, { value: `[]${elemType}`, enumerable: false });
  return items;
}

/** Tags an object as a Go map with string keys and the given value type (e.g. `string`). */
export function typedMap(valueType: string, entries: GoMap): GoMap {
  Object.defineProperty(entries, TYPE_TAG, { value: `map[string]${valueType}`, enumerable: false });
  return entries;
}

function tagOf(v: object): string | undefined {
  return (v as { [TYPE_TAG]?: string })[TYPE_TAG];
}

/** True if `v` is a Go map (a plain object, not a class instance). */
export function isMap(v: GoValue): v is GoMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GoInt) && !(v instanceof GoStruct) && !(v instanceof GoFunction);
}

/** The element type of a slice (`interface {}` unless tagged). */
export function sliceElemType(v: GoValue[]): string {
  const t = tagOf(v);
  return t ? t.slice(2) : 'interface {}';
}

/** The value type of a map (`interface {}` unless tagged). */
export function mapValueType(v: GoMap): string {
  const t = tagOf(v);
  return t ? t.slice('map[string]'.length) : 'interface {}';
}

/** Go's `%T` of a value (`<nil>` for nil). */
export function typeName(v: GoValue): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'float64';
  if (v instanceof GoInt) return v.type;
  if (v instanceof GoComplex) return 'complex128';
  if (v instanceof GoStruct) return v.typeName;
  if (v instanceof GoFunction) return funcTypeName(v);
  if (Array.isArray(v)) return tagOf(v) ?? '[]interface {}';
  return tagOf(v) ?? 'map[string]interface {}';
}

function funcTypeName(f: GoFunction): string {
  const ps: string[] = f.params.slice();
  if (f.variadic) ps.push(`...${f.variadic}`);
  return `func(${ps.join(', ')}) ${f.returnsError ? '(interface {}, error)' : 'interface {}'}`;
}

/** Go's reflect.Kind name of a value (`invalid` for nil). */
export function kindName(v: GoValue): string {
  if (v === undefined || v === null) return 'invalid';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'float64';
  if (v instanceof GoInt) return v.type;
  if (v instanceof GoComplex) return 'complex128';
  if (v instanceof GoStruct) return 'struct';
  if (v instanceof GoFunction) return 'func';
  if (Array.isArray(v)) return 'slice';
  return 'map';
}

/** The zero value of a named Go type (`undefined` for interfaces, whose zero prints `<no value>`). */
export function zeroOf(type: string): GoValue {
  switch (type) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'float64':
    case 'float32':
      return 0;
    case 'int': case 'int8': case 'int16': case 'int32': case 'int64':
    case 'uint': case 'uint8': case 'uint16': case 'uint32': case 'uint64':
      return new GoInt(0, type);
    default:
      return type.startsWith('[]') || type.startsWith('map[') ? null : undefined;
  }
}

/** Go's truth (text/template `if`): not the zero value of its type; nil is false. */
export function isTrue(v: GoValue): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (v instanceof GoInt) return v.value !== 0;
  if (v instanceof GoComplex) return v.re !== 0 || v.im !== 0;
  if (v instanceof GoStruct || v instanceof GoFunction) return true;
  if (Array.isArray(v)) return v.length > 0;
  return Object.keys(v).length > 0;
}

/** Sorted keys of a map, as Go's fmt and range order them (byte-wise for strings). */
export function sortedKeys(m: GoMap): string[] {
  return Object.keys(m).sort(compareStrings);
}

/** Byte-wise (UTF-8) string comparison, as Go compares strings. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The integer value if `v` is a Go integer, else undefined. */
export function intValue(v: GoValue): number | undefined {
  return v instanceof GoInt ? v.value : undefined;
}

/** Length of a Go string in bytes (UTF-8), as `len` counts. */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}
