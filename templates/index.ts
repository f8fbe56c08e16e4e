/**
 * templates: the Go text/template + Sprig engine shared by injection, chart rendering and the
 * operator. Imports nothing else of ours.
 */
export { GoFunction, GoInt, GoStruct, typedMap, typedSlice, typeName, kindName } from './go-value.js';
export type { GoValue, GoMap, GoIntType, GoParamType } from './go-value.js';
export { sprint, sprintf, sprintln } from './go-fmt.js';
export { TemplateExecError, type MissingKey } from './exec.js';
export { TemplateParseError } from './parser.js';
export { Template, TemplateSet, parseTemplate, type TemplateSetOptions } from './template-set.js';
export { sprigFunctions } from './sprig.js';
export { helmFunctions } from './helm-functions.js';
export { marshalYAML, unmarshalYAML } from './go-yaml.js';
export { newTemplateSet, type NewTemplateSetOptions } from './new-template-set.js';
