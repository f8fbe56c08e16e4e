/**
 * The one door from agent/ to the xDS proto layer (type URLs, proto root, codec, validation).
 * NOTE: the proto layer is being moved so agent/ may import it directly; until then every agent module
 * that needs protos imports them from here, and `.dependency-cruiser.cjs` allows `agent -> xds/protos`
 * only. At the move, this file is the only import to repoint.
 */
export { decode, encode, lookupType, typeUrlOf, validate, type ValidationIssue } from '../xds/protos/index.js';
