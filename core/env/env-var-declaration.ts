import type { ProgramName } from '../program.js';

/** The value kinds the spec gives environment variables. */
export const ENV_TYPES = ['Bool', 'String', 'Integer', 'Float', 'Duration'] as const;
export type EnvType = (typeof ENV_TYPES)[number];

/**
 * One environment variable, declared once even when several programs read it.
 * `default` is the spec's default text (null = unset); `programDefaults` overrides it for the programs
 * whose documents give a different default (POD_NAMESPACE). `programs` is `'all'` for the variables
 * common to every program, otherwise the programs that list it.
 */
export interface EnvVarDeclaration {
  readonly name: string;
  readonly type: EnvType;
  readonly default: string | null;
  readonly programDefaults?: Readonly<Partial<Record<ProgramName, string | null>>>;
  readonly programs: 'all' | readonly ProgramName[];
  readonly description: string;
  /**
   * True for the few variables the platform sets that the spec does not list (`KUBECONFIG`, the in-cluster
   * service address). They are declared here so that code still reads them only through the registry.
   */
  readonly platform?: true;
}
