/**
 * `meshctl validate -f FILE...` (alias `v`): checks mesh.io documents with the same validators meshd's
 * config sources, the CRDs and the webhook use, before they reach a cluster. Directories are read
 * recursively (`*.yaml`, `*.yml`, `*.json`); `-` reads standard input. Documents of other API groups
 * (Deployments, Services, ...) are skipped and counted; a document of Istio's API groups
 * (`networking.istio.io`, ...) is an error, as meshd rejects it. Every error of a document is listed
 * (schema errors do not hide semantic ones); `-x=false` leaves out the structural (schema) layer;
 * `-o json|yaml` prints one report per document. Files are read with the same parse limits as meshd
 * (crds/ DEFAULT_YAML_LIMITS: file size, documents, keys, aliases; duplicate keys are errors).
 */
import { command, flag, lazyRun, type Command } from '../framework/index.js';

/** validate (alias v). */
export function validateCommand(): Command {
  return command({
    name: 'validate',
    aliases: ['v'],
    short: 'Validate mesh policy and rules files',
    long: 'Checks mesh.io documents (files, directories, or - for standard input) with the validators meshd and the CRDs use.',
    flags: [
      flag.stringSlice('filename', [], 'Inputs of files to validate', { short: 'f' }),
      flag.string('output', '', 'Output format: json or yaml (one report per document); text when empty', { short: 'o' }),
      flag.bool('referential', true, 'Enable structural validation (the CRD schema layer: types, unknown fields)', { short: 'x' }),
    ],
    run: lazyRun(() => import('./validate-run.js'), (m) => m.runValidate),
  });
}
