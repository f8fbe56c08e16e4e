import type { GoFunction } from "./go-value.js";
export function sprigFunctions(): Record<string, GoFunction> { return {}; }
