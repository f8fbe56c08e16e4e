/** One finding of an analyzer: a message type, the resource it is about and the template's arguments. */
import { formatTemplate, type MessageType } from './message-catalogue.js';
import { friendlyName, referenceOf, type Resource } from './resource.js';

/** A finding. */
export interface Diagnostic {
  readonly type: MessageType;
  /** The resource the finding is about; absent for findings about the whole input. */
  readonly resource?: Resource;
  readonly args: readonly unknown[];
  /** The analyzer that reported it (Istio's analyzer name). */
  readonly analyzer: string;
}

/** The finding's text (the template filled with its arguments). */
export function messageText(d: Diagnostic): string {
  return formatTemplate(d.type.template, d.args);
}

/** `Kind namespace/name` of the finding's resource, or `''`. */
export function originOf(d: Diagnostic): string {
  return d.resource ? friendlyName(d.resource) : '';
}

/** `file:line` of the finding's resource when it was read from a file, or `''`. */
export function referenceOfDiagnostic(d: Diagnostic): string {
  return d.resource ? (referenceOf(d.resource) ?? '') : '';
}
