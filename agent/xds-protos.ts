/**
 * The one door from agent/ to the xDS proto layer (type URLs, proto root, codec, validation): xds/protos,
 * which imports nothing else of xds/. `.dependency-cruiser.cjs` lets agent/ reach it from this file only.
 */
export { decode, encode, lookupType, TYPE_URL, typeUrlOf, validate, type ValidationIssue } from '../xds/protos/index.js';
