/**
 * `Infer<S>`: the TypeScript value type described by a schema node made with `builders.ts`.
 *
 * Required properties become required keys, others optional; enums become string-literal unions;
 * `x-kubernetes-int-or-string` becomes `number | string`; free-form objects become `Record<string, unknown>`.
 */

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type InferObject<P, R> = Simplify<
  { -readonly [K in keyof P as K extends R ? K : never]: Infer<P[K]> } & {
    -readonly [K in keyof P as K extends R ? never : K]?: Infer<P[K]>;
  }
>;

/** The value type of schema node `S`. */
export type Infer<S> = S extends { readonly 'x-kubernetes-int-or-string': true }
  ? number | string
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly type: 'string' }
      ? string
      : S extends { readonly type: 'integer' | 'number' }
        ? number
        : S extends { readonly type: 'boolean' }
          ? boolean
          : S extends { readonly type: 'array'; readonly items: infer I }
            ? Infer<I>[]
            : S extends { readonly type: 'object'; readonly properties: infer P; readonly required?: readonly (infer R)[] }
              ? S extends { readonly 'x-kubernetes-preserve-unknown-fields': true }
                ? InferObject<P, R> & Record<string, unknown>
                : InferObject<P, R>
              : S extends { readonly type: 'object'; readonly additionalProperties: infer V }
                ? Record<string, Infer<V>>
                : S extends { readonly type: 'object' }
                  ? Record<string, unknown>
                  : unknown;
