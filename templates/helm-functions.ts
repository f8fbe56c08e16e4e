import type { GoFunction } from "./go-value.js";
import type { TemplateSet } from "./template-set.js";
export function helmFunctions(_set: TemplateSet): Record<string, GoFunction> { return {}; }
