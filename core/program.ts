/** The four programs built from this codebase. */
export const PROGRAMS = ['pilot-discovery', 'pilot-agent', 'meshctl', 'operator'] as const;
export type ProgramName = (typeof PROGRAMS)[number];
