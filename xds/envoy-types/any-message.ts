/**
 * `google.protobuf.Any` as the codec (xds/protos/codec.ts) takes it: expanded, `{ '@type': url, ...fields }`,
 * or pre-encoded (`anyOf(typeUrl, bytes)`). The generated Envoy types use it for every Any field.
 */
export type AnyMessage = { readonly '@type': string; readonly [field: string]: unknown } | { readonly type_url: string; readonly value: Uint8Array };
