import type { ProgramName } from '../program.js';
import type { EnvType, EnvVarDeclaration } from './env-var-declaration.js';
import { COMMON_ENV_VARS } from './env-vars-common.js';
import { PLATFORM_ENV_VARS } from './env-vars-platform.js';
import { PROGRAM_ENV_VARS } from './env-vars-programs.js';

/** Every environment variable of the spec, each declared once, then the few the platform sets. */
export const ENV_VARS = [...COMMON_ENV_VARS, ...PROGRAM_ENV_VARS, ...PLATFORM_ENV_VARS] as const satisfies readonly EnvVarDeclaration[];

type Declared = (typeof ENV_VARS)[number];
/** The name of any declared variable. */
export type EnvVarName = Declared['name'];
/** The names of the declared variables of one type: `EnvVarNameOf<'Bool'>`. */
export type EnvVarNameOf<T extends EnvType> = Extract<Declared, { type: T }>['name'];

const BY_NAME: ReadonlyMap<string, EnvVarDeclaration> = new Map(ENV_VARS.map((v) => [v.name, v]));

/** The declaration of `name`, or undefined when no such variable is declared. */
export function envVarDeclaration(name: string): EnvVarDeclaration | undefined {
  return BY_NAME.get(name);
}

/** True when `program` reads the variable. */
export function programReads(declaration: EnvVarDeclaration, program: ProgramName): boolean {
  return declaration.programs === 'all' || declaration.programs.includes(program);
}

/** The default text of the variable for `program` (null = unset). */
export function defaultFor(declaration: EnvVarDeclaration, program: ProgramName): string | null {
  const override = declaration.programDefaults?.[program];
  return override === undefined ? declaration.default : override;
}

/** The variables `program` reads, in declaration order. */
export function envVarsOf(program: ProgramName): readonly EnvVarDeclaration[] {
  return ENV_VARS.filter((v) => programReads(v, program));
}
