/** Renders the bootstrap template, checks it and writes it where the proxy reads it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BootstrapError, checkBootstrap } from './bootstrap-check.js';
import { bootstrapData, type BootstrapInputs } from './bootstrap-data.js';
import { BUILT_IN_BOOTSTRAP_TEMPLATE } from './bootstrap-template.js';
import { writeFileWhole } from '../write-file-whole.js';

/**
 * Renders Go text/template `text` with `data`. Injected by cli/ (the template engine lives in
 * templates/, which agent/ does not import); throws with the template's own error on bad syntax.
 */
export type TemplateRenderer = (name: string, text: string, data: Record<string, unknown>) => string;

/** The rendered, checked bootstrap and where it was written. */
export interface WrittenBootstrap {
  readonly path: string;
  readonly text: string;
  readonly bytes: Uint8Array;
}

/**
 * Renders the built-in template (or `templatePath`, the `--templateFile` / proxyBootstrapTemplatePath),
 * checks the result as an Envoy Bootstrap, and writes `<configPath>/dataplane-rev.json` whole or not at all
 * (writeFileWhole: a full disk never leaves a torn bootstrap for the proxy to read).
 * Throws `BootstrapError` naming the template for unreadable files, template errors and invalid output, and the
 * path for a write that fails.
 */
export function writeBootstrap(inputs: BootstrapInputs, render: TemplateRenderer, templatePath?: string): WrittenBootstrap {
  const source = templatePath ? `template file ${templatePath}` : 'the built-in template';
  let template = BUILT_IN_BOOTSTRAP_TEMPLATE;
  if (templatePath) {
    try {
      template = readFileSync(templatePath, 'utf8');
    } catch (e) {
      throw new BootstrapError(`bootstrap ${source}: cannot read it: ${(e as Error).message}`);
    }
  }
  let text: string;
  try {
    text = render(templatePath ?? 'bootstrap', template, bootstrapData(inputs));
  } catch (e) {
    throw new BootstrapError(`bootstrap from ${source}: ${(e as Error).message}`);
  }
  const bytes = checkBootstrap(text, source);
  const path = join(inputs.proxy.configPath, 'dataplane-rev.json');
  try {
    writeFileWhole(path, text);
  } catch (e) {
    throw new BootstrapError(`bootstrap: ${(e as Error).message}`);
  }
  return { path, text, bytes };
}
