/**
 * A MeshOperator that cannot be read, merged, validated or mapped to chart values. The message names the
 * input (file, `--set` argument or profile) and the field.
 */
export class MeshOperatorError extends Error {
  override readonly name = 'MeshOperatorError';
}

/** Throws the project's "not implemented yet" failure for a MeshOperator feature not built yet. */
export function notBuiltYet(what: string): never {
  throw new MeshOperatorError(`not implemented yet: ${what}`);
}
